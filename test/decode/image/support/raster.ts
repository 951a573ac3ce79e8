import { PNG } from 'pngjs'

/**
 * A greyscale picture, one byte per pixel, row-major. Greyscale keeps the helpers short and is all a
 * barcode reader looks at anyway (zxing converts every input to luminance first).
 */
export interface Raster {
  readonly width: number
  readonly height: number
  readonly data: Uint8Array
}

export function createRaster(width: number, height: number, fill = 255): Raster {
  return { width, height, data: new Uint8Array(width * height).fill(fill) }
}

/** Bounds-checked read; outside the picture is `outside` so samplers need no special cases. */
export function pixelAt(r: Raster, x: number, y: number, outside = 255): number {
  if (x < 0 || y < 0 || x >= r.width || y >= r.height) return outside
  return r.data[y * r.width + x] ?? outside
}

export function clampByte(v: number): number {
  return v < 0 ? 0 : v > 255 ? 255 : Math.round(v)
}

/** Transparent pixels are composited over white: bwip-js draws on a transparent canvas by default. */
export function rasterFromPng(png: Uint8Array): Raster {
  const img = PNG.sync.read(Buffer.from(png))
  const out = createRaster(img.width, img.height)
  for (let i = 0; i < out.data.length; i++) {
    const o = i * 4
    const luma = 0.299 * img.data[o]! + 0.587 * img.data[o + 1]! + 0.114 * img.data[o + 2]!
    const alpha = img.data[o + 3]! / 255
    out.data[i] = clampByte(luma * alpha + 255 * (1 - alpha))
  }
  return out
}

/** Written as RGB with a faint warm cast, like paper under indoor light, so the reader gets colour input. */
export function rasterToPng(r: Raster): Uint8Array {
  const png = new PNG({ width: r.width, height: r.height, colorType: 2 })
  for (let i = 0; i < r.data.length; i++) {
    const v = r.data[i]!
    const o = i * 4
    png.data[o] = v
    png.data[o + 1] = clampByte(v * 0.97)
    png.data[o + 2] = clampByte(v * 0.9)
    png.data[o + 3] = 255
  }
  return new Uint8Array(PNG.sync.write(png, { colorType: 2 }))
}
