// Camera scanning: frames from getUserMedia decoded by zxing-wasm, served by this server (its
// .wasm included: nothing is fetched from a CDN). Loaded only when the clerk opens the camera.
import { prepareZXingModule, readBarcodes } from 'zxing-wasm/reader'

prepareZXingModule({
  overrides: { locateFile: (file) => `/console/vendor/zxing/reader/${file}` },
  fireImmediately: false,
})

/** The first barcode in a frame, as text (null when none decodes). */
export async function decodeImageData(imageData) {
  const found = await readBarcodes(imageData, { tryHarder: true, maxNumberOfSymbols: 1 })
  return found.length > 0 && found[0].text ? found[0].text : null
}

export const cameraAvailable = () => Boolean(navigator.mediaDevices?.getUserMedia)

/**
 * Reads frames from `video` until a barcode decodes or `signal` aborts; resolves with its text
 * (the raw bytes as text, so a 2D label's GS/RS separators reach the decode API intact).
 */
export async function scanFromCamera(video, signal) {
  const stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment' } })
  try {
    video.srcObject = stream
    await video.play()
    const canvas = document.createElement('canvas')
    const context = canvas.getContext('2d', { willReadFrequently: true })
    while (!signal.aborted) {
      if (video.videoWidth > 0) {
        canvas.width = video.videoWidth
        canvas.height = video.videoHeight
        context.drawImage(video, 0, 0)
        const text = await decodeImageData(context.getImageData(0, 0, canvas.width, canvas.height))
        if (text) return text
      }
      await new Promise((r) => setTimeout(r, 150))
    }
    return null
  } finally {
    for (const track of stream.getTracks()) track.stop()
    video.srcObject = null
  }
}
