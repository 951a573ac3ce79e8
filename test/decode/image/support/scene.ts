import { pasteRotated, cardboard, sticker } from './compose.js'
import { addNoise, boxBlur, seededRandom, vignette } from './filters.js'
import { scale } from './geometry.js'
import type { Raster } from './raster.js'

/** One symbol on the box: where its sticker sits (centre, as a fraction of the frame) and how it is turned. */
export interface Placement {
  readonly symbol: Raster
  readonly at: { readonly x: number; readonly y: number }
  readonly degrees: number
  /** Camera distance: symbols are rendered crisp, then resampled by this factor. */
  readonly zoom?: number
}

export interface PhotoOptions {
  readonly width: number
  readonly height: number
  readonly placements: readonly Placement[]
  readonly seed: number
  /** Box-blur radius in pixels (defocus); 0 for none. */
  readonly blur?: number
  /** Sensor noise, standard deviation in grey levels. */
  readonly noise?: number
}

/**
 * A phone photo of a parcel: cardboard, white stickers turned at any angle, uneven light, defocus and
 * sensor noise, in that order, as the light reaches the sensor.
 */
export function labelPhoto(options: PhotoOptions): Raster {
  const random = seededRandom(options.seed)
  let frame = cardboard(options.width, options.height, random)
  for (const p of options.placements) {
    const symbol = p.zoom === undefined || p.zoom === 1 ? p.symbol : scale(p.symbol, p.zoom)
    pasteRotated(frame, sticker(symbol, 24, random), p.degrees, p.at.x * options.width, p.at.y * options.height)
  }
  frame = vignette(frame, 1.05, 0.8)
  frame = boxBlur(frame, options.blur ?? 0)
  return addNoise(frame, options.noise ?? 0, random)
}
