/**
 * Writes the few label images the everyday tests read (test/decode/label/fixtures/): a clean label
 * and photos of labels, from the bench's seeded generator, small JPEGs, with what each says in
 * manifest.json. Run again only to change them: the tests pin what OCR reads from these bytes.
 *
 *   node --import tsx bench/render-label-fixtures.ts
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { makeDirectory, makeLabels } from './labels/directory.js'
import { renderLabels } from './labels/render.js'

const OUT = path.resolve('test/decode/label/fixtures')
mkdirSync(OUT, { recursive: true })
const people = makeDirectory(2000)
const labels = makeLabels(people, 3, 1)
const shots = await renderLabels(labels, { seed: 5 })
const manifest: Record<string, unknown> = {}
for (const [i, shot] of shots.entries()) {
  // The first label clean (a flat scan), every label as a photo.
  if (shot.kind === 'clean' && i > 0) continue
  const file = `label-${Math.floor(i / 2) + 1}-${shot.kind}.${shot.kind === 'clean' ? 'png' : 'jpg'}`
  writeFileSync(path.join(OUT, file), shot.bytes)
  const person = people.find((p) => p.contactId === shot.spec.contactId)!
  manifest[file] = { printedName: shot.spec.printedName, person, spec: shot.spec, degradation: shot.degradation }
}
writeFileSync(path.join(OUT, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`)
console.log(`wrote ${Object.keys(manifest).length} labels to ${OUT}`)
