import { createRaster, pixelAt, type Raster } from './raster.js'

/** Bilinear sample at a fractional position; outside the source reads as `fill`. */
function sample(src: Raster, x: number, y: number, fill: number): number {
  const x0 = Math.floor(x)
  const y0 = Math.floor(y)
  const fx = x - x0
  const fy = y - y0
  const top = pixelAt(src, x0, y0, fill) * (1 - fx) + pixelAt(src, x0 + 1, y0, fill) * fx
  const bottom = pixelAt(src, x0, y0 + 1, fill) * (1 - fx) + pixelAt(src, x0 + 1, y0 + 1, fill) * fx
  return top * (1 - fy) + bottom * fy
}

/**
 * Rotates by any angle (degrees, clockwise on screen) about the centre. The canvas grows to hold
 * the whole rotated picture, so nothing of the symbol is cropped; new corners are `fill`.
 */
export function rotate(src: Raster, degrees: number, fill = 255): Raster {
  const a = (degrees * Math.PI) / 180
  const cos = Math.cos(a)
  const sin = Math.sin(a)
  const width = Math.ceil(Math.abs(src.width * cos) + Math.abs(src.height * sin))
  const height = Math.ceil(Math.abs(src.width * sin) + Math.abs(src.height * cos))
  const out = createRaster(width, height, fill)
  const cx = src.width / 2
  const cy = src.height / 2
  for (let y = 0; y < height; y++) {
    const dy = y + 0.5 - height / 2
    for (let x = 0; x < width; x++) {
      const dx = x + 0.5 - width / 2
      // Inverse mapping: each output pixel asks where it came from, so there are no holes.
      const sx = dx * cos + dy * sin + cx - 0.5
      const sy = -dx * sin + dy * cos + cy - 0.5
      out.data[y * width + x] = Math.round(sample(src, sx, sy, fill))
    }
  }
  return out
}

/** Resamples by `factor` (bilinear), as a camera further away or nearer would. */
export function scale(src: Raster, factor: number): Raster {
  const width = Math.max(1, Math.round(src.width * factor))
  const height = Math.max(1, Math.round(src.height * factor))
  const out = createRaster(width, height)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const v = sample(src, (x + 0.5) / factor - 0.5, (y + 0.5) / factor - 0.5, 255)
      out.data[y * width + x] = Math.round(v)
    }
  }
  return out
}
