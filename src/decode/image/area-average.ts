/** A grey picture, one byte a pixel, row by row. */
export interface Grey {
  width: number
  height: number
  data: Uint8Array
}

/**
 * A picture area-averaged to at most `maxPixels` while it is decoded, a pixel at a time in any
 * order (an interlaced PNG's passes too): each output pixel is the mean of the source pixels it
 * covers, and the full-size picture is never held. Memory: 4 bytes an output pixel and 4 a source
 * column and row, whatever the source's size (16 MB at 4 MP).
 */
class AreaAverage {
  readonly width: number
  readonly height: number
  private readonly sums: Uint32Array
  private readonly colOf: Uint32Array
  private readonly rowOf: Uint32Array

  constructor(
    readonly srcWidth: number,
    readonly srcHeight: number,
    maxPixels: number,
  ) {
    const f = Math.max(1, Math.sqrt((srcWidth * srcHeight) / maxPixels))
    this.width = Math.max(1, Math.floor(srcWidth / f))
    this.height = Math.max(1, Math.floor(srcHeight / f))
    this.sums = new Uint32Array(this.width * this.height)
    // Source column (row) → output column (row), once; the remainder goes to the last one.
    this.colOf = new Uint32Array(srcWidth)
    for (let x = 0; x < srcWidth; x++) this.colOf[x] = Math.min(this.width - 1, Math.floor(x / f))
    this.rowOf = new Uint32Array(srcHeight)
    for (let y = 0; y < srcHeight; y++) this.rowOf[y] = Math.min(this.height - 1, Math.floor(y / f))
  }

  /** `count` pixels of source row `y` from column `x0`, every `step` columns, from `values` at `at`, `stride` apart. */
  addRow(y: number, x0: number, step: number, count: number, values: ArrayLike<number>, at = 0, stride = 1): void {
    const base = this.rowOf[y]! * this.width
    const { sums, colOf } = this
    for (let i = 0, x = x0, p = at; i < count; i++, x += step, p += stride) sums[base + colOf[x]!]! += values[p]!
  }

  /** The averaged picture (every source pixel is expected to have been added once). */
  finish(): Grey {
    const { width, height, sums } = this
    const cols = new Uint32Array(width)
    const rows = new Uint32Array(height)
    for (let x = 0; x < this.srcWidth; x++) cols[this.colOf[x]!]!++
    for (let y = 0; y < this.srcHeight; y++) rows[this.rowOf[y]!]!++
    const data = new Uint8Array(width * height)
    for (let y = 0; y < height; y++)
      for (let x = 0, i = y * width; x < width; x++, i++) data[i] = Math.round(sums[i]! / (cols[x]! * rows[y]!))
    return { width, height, data }
  }
}

/** Area-averaged to at most `maxPixels` (each output pixel the mean of the source pixels it covers). */
export function downscale(g: Grey, maxPixels: number): Grey {
  if (g.width * g.height <= maxPixels) return g
  const area = new AreaAverage(g.width, g.height, maxPixels)
  for (let y = 0; y < g.height; y++) area.addRow(y, 0, 1, g.width, g.data, y * g.width)
  return area.finish()
}
