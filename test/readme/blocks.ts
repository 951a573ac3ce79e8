import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'

export const ROOT = path.resolve(import.meta.dirname, '../..')

/** A shell block of a Markdown file: run as written unless marked ```sh no-run: <reason>. */
export interface ShellBlock {
  file: string
  line: number
  info: string
  /** Why it is not run; undefined for a block that runs. */
  noRun: string | undefined
  script: string
}

const FENCE = /^```(sh|bash|shell|console|zsh)\b([^\n]*)\n([\s\S]*?)^```/gm

export function shellBlocks(file: string): ShellBlock[] {
  const text = readFileSync(path.join(ROOT, file), 'utf8')
  return [...text.matchAll(FENCE)].map((m) => {
    const info = `${m[1]}${m[2]}`.trim()
    const noRun = /^\S+ no-run\b/.test(info) ? info.replace(/^\S+ no-run:?\s*/, '') : undefined
    return { file, line: text.slice(0, m.index).split('\n').length, info, noRun, script: m[3]! }
  })
}

export const docFiles = (): string[] =>
  readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`)

/** The walk-through's ```sh blocks, in order, verbatim: what every runnable docs block follows. */
export function walkthrough(): string {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8')
  const section = readme.slice(readme.indexOf('## Walk-through with curl'))
  const body = section.slice(0, section.indexOf('\n## ', 5))
  return [...body.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]).join('\n')
}
