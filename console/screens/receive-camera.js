// Receive's "Scan with camera": the camera reads one barcode into the Scan field and submits it,
// as a keyboard-wedge scanner would. camera.js (the decoder) is loaded only when asked for.
import { useRef, useState } from 'preact/hooks'

export function useCameraScan({ scanRef, setScan, setError }) {
  const videoRef = useRef(null)
  const [camera, setCamera] = useState(null)
  const openCamera = async () => {
    const { scanFromCamera, cameraAvailable } = await import('../camera.js')
    if (!cameraAvailable()) return setError(new Error('No camera is available in this browser.'))
    const controller = new AbortController()
    setCamera(controller)
    try {
      await new Promise((r) => setTimeout(r, 0))
      const text = await scanFromCamera(videoRef.current, controller.signal)
      if (text) {
        setScan(text)
        setTimeout(() => scanRef.current?.form?.requestSubmit(), 0)
      }
    } catch (err) {
      setError(new Error(`The camera could not be used: ${err.message}`))
    } finally {
      setCamera(null)
    }
  }
  return { camera, videoRef, openCamera }
}
