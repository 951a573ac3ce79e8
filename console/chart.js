// A small SVG bar chart (no library, no CDN): grouped bars per category, one colour per series,
// with its data in a table under it (the chart is a picture of the table, for those who see it).
import { html } from './ui.js'

const COLOURS = ['#1f5fa8', '#c0581a', '#2f7d32', '#6a3d9a']
const W = 640
const H = 220
const PAD = { left: 44, right: 8, top: 10, bottom: 44 }

/** A round step for the axis: 1, 2 or 5 times a power of ten, about five ticks up to max. */
function ticks(max) {
  if (max <= 0) return [0, 1]
  const raw = max / 5
  const p = 10 ** Math.floor(Math.log10(raw))
  const step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw)
  const out = []
  for (let v = 0; v <= max + step / 2; v += step) out.push(Math.round(v * 100) / 100)
  if (out[out.length - 1] < max) out.push(out[out.length - 1] + step)
  return out
}

/**
 * `categories`: the x labels; `series`: [{ name, values }] with one value per category (null: none).
 * The table below repeats every number; the SVG is labelled by the figure's caption.
 */
export function BarChart({ id, title, categories, series, unit = '' }) {
  const max = Math.max(0, ...series.flatMap((s) => s.values.map((v) => v ?? 0)))
  const axis = ticks(max)
  const top = axis[axis.length - 1] || 1
  const plotW = W - PAD.left - PAD.right
  const plotH = H - PAD.top - PAD.bottom
  const band = categories.length ? plotW / categories.length : plotW
  const bar = Math.max(1, (band * 0.8) / Math.max(1, series.length))
  const y = (v) => PAD.top + plotH - (v / top) * plotH
  // Label every category while they fit, else about a dozen of them.
  const every = Math.max(1, Math.ceil(categories.length / 12))
  return html`<figure class="chart" aria-labelledby=${`${id}-caption`}>
    <figcaption id=${`${id}-caption`}>${title}</figcaption>
    <ul class="legend" aria-hidden="true">
      ${series.map((s, i) => html`<li><span class="swatch" style=${`background:${COLOURS[i % COLOURS.length]}`}></span>${s.name}</li>`)}
    </ul>
    <svg viewBox=${`0 0 ${W} ${H}`} role="img" aria-labelledby=${`${id}-caption`} focusable="false">
      ${axis.map(
        (v) =>
          html`<g>
            <line x1=${PAD.left} x2=${W - PAD.right} y1=${y(v)} y2=${y(v)} class="grid" />
            <text x=${PAD.left - 4} y=${y(v) + 4} text-anchor="end" class="tick">${v}</text>
          </g>`,
      )}
      ${categories.map(
        (c, ci) =>
          html`<g>
            ${series.map((s, si) => {
              const v = s.values[ci]
              if (v === null || v === undefined) return null
              const x = PAD.left + ci * band + band * 0.1 + si * bar
              return html`<rect
                x=${x}
                y=${y(v)}
                width=${bar}
                height=${Math.max(0, PAD.top + plotH - y(v))}
                fill=${COLOURS[si % COLOURS.length]}
                ><title>${`${c} · ${s.name}: ${v}${unit}`}</title></rect
              >`
            })}
            ${
              ci % every === 0 &&
              html`<text x=${PAD.left + ci * band + band / 2} y=${H - PAD.bottom + 16} text-anchor="middle" class="tick"
                >${c}</text
              >`
            }
          </g>`,
      )}
    </svg>
    <div class="table-wrap">
      <table data-testid=${`${id}-table`}>
        <caption class="sr">
          ${title}: data
        </caption>
        <thead>
          <tr>
            <th scope="col">Period</th>
            ${series.map((s) => html`<th scope="col">${s.name}</th>`)}
          </tr>
        </thead>
        <tbody>
          ${categories.map(
            (c, ci) =>
              html`<tr>
                <th scope="row">${c}</th>
                ${series.map((s) => html`<td>${s.values[ci] ?? '—'}</td>`)}
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
  </figure>`
}
