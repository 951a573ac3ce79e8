import { boxBlur, gaussianish } from './filters.js'
import { rotate } from './geometry.js'
import { clampByte, createRaster, type Raster } from './raster.js'

/**
 * Corrugated cardboard: a mid-grey base, blotches (blurred coarse noise) and thin dark fibres.
 * Texture matters: a flat background would let a reader skip the hard part, telling symbol from clutter.
 */
export function cardboard(width: number, height: number, random: () => number): Raster {
  const blotches = createRaster(width, height)
  for (let i = 0; i < blotches.data.length; i++) blotches.data[i] = clampByte(150 + 40 * gaussianish(random))
  const out = boxBlur(blotches, 6)
  for (let f = 0; f < (width * height) / 4000; f++) {
    const x = Math.floor(random() * width)
    const y = Math.floor(random() * height)
    const len = 10 + Math.floor(random() * 40)
    for (let i = 0; i < len && x + i < width; i++) {
      const at = y * width + x + i
      out.data[at] = clampByte(out.data[at]! - 35)
    }
  }
  return out
}

/** A white sticker holding the symbol, with short dark dashes above and below that read as printed text. */
export function sticker(symbol: Raster, margin: number, random: () => number): Raster {
  const width = symbol.width + 2 * margin
  const height = symbol.height + 2 * margin
  const out = createRaster(width, height, 255)
  paste(out, symbol, margin, margin)
  const textRow = (y0: number): void => {
    for (let x = 4; x < width - 12; x += 8 + Math.floor(random() * 6)) {
      if (random() < 0.2) continue // word gaps
      for (let y = y0; y < y0 + 5 && y < height; y++) {
        for (let dx = 0; dx < 5; dx++) out.data[y * width + x + dx] = 40
      }
    }
  }
  if (margin >= 16) {
    textRow(Math.floor(margin / 2) - 3)
    textRow(height - Math.floor(margin / 2) - 3)
  }
  return out
}

/** Copies `src` into `dst` with its top-left corner at (x, y), clipping at the edges. */
export function paste(dst: Raster, src: Raster, x: number, y: number, mask?: Raster): void {
  for (let sy = 0; sy < src.height; sy++) {
    const dy = y + sy
    if (dy < 0 || dy >= dst.height) continue
    for (let sx = 0; sx < src.width; sx++) {
      const dx = x + sx
      if (dx < 0 || dx >= dst.width) continue
      const s = src.data[sy * src.width + sx]!
      const at = dy * dst.width + dx
      const m = mask ? mask.data[sy * src.width + sx]! / 255 : 1
      dst.data[at] = Math.round(s * m + dst.data[at]! * (1 - m))
    }
  }
}

/**
 * Lays `piece` onto `dst` turned by `degrees`, centred at (cx, cy). Rotating an all-white twin
 * with a black fill gives the coverage mask, so the turned sticker's corners show the box beneath.
 */
export function pasteRotated(dst: Raster, piece: Raster, degrees: number, cx: number, cy: number): void {
  const turned = rotate(piece, degrees, 255)
  const mask = rotate(createRaster(piece.width, piece.height, 255), degrees, 0)
  paste(dst, turned, Math.round(cx - turned.width / 2), Math.round(cy - turned.height / 2), mask)
}
