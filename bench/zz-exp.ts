import { readFileSync } from 'node:fs'
import { createWorker } from 'tesseract.js'
import { bundledLangPath } from '../src/decode/image/ocr.js'
const m = JSON.parse(readFileSync('test/decode/label/fixtures/manifest.json', 'utf8'))
const files = ['label-1-photo.jpg', 'label-2-photo.jpg', 'label-3-photo.jpg']
const w = await createWorker('eng', 1, { langPath: bundledLangPath(), cacheMethod: 'none', errorHandler: () => {} })
await w.setParameters({ tessedit_pageseg_mode: '3', tessedit_do_invert: '0', user_defined_dpi: '300' } as never)
for (const f of files) {
  const bytes = readFileSync(`test/decode/label/fixtures/${f}`)
  for (const sign of [1, -1]) {
    const t0 = performance.now()
    const r = await w.recognize(bytes, { rotateRadians: (sign * m[f].degradation.degrees * Math.PI) / 180 } as never, { text: true })
    console.log(f, sign, Math.round(performance.now() - t0), 'ms |', r.data.text.replace(/\n+/g, ' / ').slice(0, 160))
  }
}
await w.terminate()
