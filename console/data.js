// Reference data the screens share, read once per page load (sites change rarely; a reload refreshes).
import { get } from './api.js'

let sites
/** Every site of the subscription (all levels), in tree order (locationHierarchy). */
export function loadSites({ fresh = false } = {}) {
  if (!sites || fresh)
    sites = get('/api/v1/inboundsites?limit=200&sort=locationHierarchy,ASC').then((r) => r.inboundSites)
  sites.catch(() => (sites = undefined))
  return sites
}

/** A file (photo) or a canvas (signature) as the image API takes it: a data URL → {imageId, tempURL}. */
export async function uploadImage(post, blob) {
  const base64 = await new Promise((resolve, reject) => {
    const reader = new FileReader()
    reader.onload = () => resolve(String(reader.result))
    reader.onerror = () => reject(reader.error)
    reader.readAsDataURL(blob)
  })
  return post('/api/v1/packages/images', { base64 })
}

const LOCATION_KEY = 'mailroom.console.location'
/** The location the clerk last received into: kept between scans and page loads, on this device only. */
export const rememberedLocation = () => {
  try {
    return JSON.parse(localStorage.getItem(LOCATION_KEY) ?? 'null') ?? { inboundSiteId: '', packageLocation: '' }
  } catch {
    return { inboundSiteId: '', packageLocation: '' }
  }
}
export const rememberLocation = (loc) => localStorage.setItem(LOCATION_KEY, JSON.stringify(loc))
