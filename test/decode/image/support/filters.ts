import { clampByte, createRaster, type Raster } from './raster.js'

/** Seeded PRNG (mulberry32) so every generated photo is the same on every run and machine. */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Sum of four uniforms: close enough to a normal distribution for sensor noise, and cheap. */
export function gaussianish(random: () => number): number {
  return (random() + random() + random() + random() - 2) * Math.sqrt(3)
}

/** Adds zero-mean noise with standard deviation `sigma` grey levels. */
export function addNoise(src: Raster, sigma: number, random: () => number): Raster {
  const out = createRaster(src.width, src.height)
  for (let i = 0; i < src.data.length; i++) {
    out.data[i] = clampByte(src.data[i]! + sigma * gaussianish(random))
  }
  return out
}

/**
 * Box blur of the given radius, run as two separable passes with running sums: O(pixels) whatever
 * the radius. Two boxes in a row approximate a defocused lens well enough for a reader.
 */
export function boxBlur(src: Raster, radius: number): Raster {
  if (radius < 1) return src
  return blurPass(blurPass(src, radius, true), radius, false)
}

function blurPass(src: Raster, radius: number, horizontal: boolean): Raster {
  const { width, height } = src
  const out = createRaster(width, height)
  const lines = horizontal ? height : width
  const length = horizontal ? width : height
  const at = (line: number, i: number): number => {
    const c = Math.min(length - 1, Math.max(0, i)) // edges repeat, so borders do not darken
    return horizontal ? line * width + c : c * width + line
  }
  const span = radius * 2 + 1
  for (let line = 0; line < lines; line++) {
    let sum = 0
    for (let i = -radius; i <= radius; i++) sum += src.data[at(line, i)]!
    for (let i = 0; i < length; i++) {
      out.data[at(line, i)] = Math.round(sum / span)
      sum += src.data[at(line, i + radius + 1)]! - src.data[at(line, i - radius)]!
    }
  }
  return out
}

/**
 * Uneven lighting: a linear fall-off from `bright` at the top-left corner to `dark` at the
 * bottom-right, multiplied in. Global-threshold binarizers fail on this; local ones must not.
 */
export function vignette(src: Raster, bright: number, dark: number): Raster {
  const out = createRaster(src.width, src.height)
  const span = src.width + src.height
  for (let y = 0; y < src.height; y++) {
    for (let x = 0; x < src.width; x++) {
      const k = bright + ((dark - bright) * (x + y)) / span
      out.data[y * src.width + x] = clampByte(src.data[y * src.width + x]! * k)
    }
  }
  return out
}
