import { encodeGif } from './gif.js'
import { encodeJpeg } from './jpeg.js'
import { rasterToPng, type Raster } from './raster.js'

export type Container = 'png' | 'jpeg' | 'gif'

/** File bytes as a client would upload them. JPEG at quality 80, a phone camera's usual setting. */
export function encodeImage(r: Raster, container: Container): Uint8Array {
  if (container === 'jpeg') return encodeJpeg(r, 80)
  if (container === 'gif') return encodeGif(r)
  return rasterToPng(r)
}
