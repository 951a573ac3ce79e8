import Mustache from 'mustache'

// What a subscription's template may cost (issue 26). Mustache resolves a section's name up the
// context stack, so {{#packages}} inside {{#packages}} repeats every parcel once per parcel: a
// 625-character template nesting it 24 levels deep froze the process for 10.5 s. So: a template's
// sections nest at most `sectionDepth` deep and never repeat the parcel list inside itself; each
// part, rendered, is at most `renderedChars`; and every rendering, at save and at send, runs
// with a budget of steps, time and size that stops it, whatever was saved before these rules.

export const TEMPLATE_LIMITS = {
  /** Sections inside sections (the shipped templates use 2). */
  sectionDepth: 6,
  /** Characters of each part once rendered (an email's parts; the subject is one header line). */
  renderedChars: { subject: 1_000, text: 262_144, html: 524_288 },
  /** Parcels of the sample a template is test-rendered with when saved. */
  sampleParcels: 100,
  /** Tokens one rendering may walk through (repeats counted), and the time it may take. */
  steps: 2_000_000,
  renderMs: 250,
} as const

export type TemplatePart = keyof typeof TEMPLATE_LIMITS.renderedChars

/** A rendering that went past its budget: the template, not the mail server, is at fault. */
export class TemplateBudgetExceeded extends Error {}

type Spans = ReturnType<typeof Mustache.parse>
const LIST = 'packages'

/** Why a template's structure could cost more than the bound, or undefined. */
export function structureProblem(spans: Spans): string | undefined {
  const depthOf = (list: Spans): number =>
    Math.max(0, ...list.map((s) => (Array.isArray(s[4]) ? 1 + depthOf(s[4]) : 0)))
  if (depthOf(spans) > TEMPLATE_LIMITS.sectionDepth)
    return `nests sections more than ${TEMPLATE_LIMITS.sectionDepth} levels deep (the limit)`
  const listInList = (list: Spans, inList: boolean): boolean =>
    list.some((s) => {
      if (!Array.isArray(s[4])) return false
      const repeats = s[0] === '#' && s[1] === LIST
      return (repeats && inList) || listInList(s[4], inList || repeats)
    })
  if (listInList(spans, false))
    return `may not repeat {{#${LIST}}} inside {{#${LIST}}} (each level multiplies the work by the parcels)`
  return undefined
}

/**
 * Renders `template` as Mustache.render does, on a writer of its own that counts: the tokens it
 * walks (a section repeated counts each time) against `steps` and the clock, and the characters it
 * writes against `maxChars`. Past any of them it throws TemplateBudgetExceeded, early: the work
 * done is bounded by the budget, not by the template.
 */
export function renderWithBudget(
  template: string,
  view: object,
  maxChars: number,
  config?: { escape: (v: unknown) => string },
): string {
  const writer = new Mustache.Writer()
  const deadline = performance.now() + TEMPLATE_LIMITS.renderMs
  let steps = 0
  let chars = 0
  const renderTokens = writer.renderTokens.bind(writer)
  writer.renderTokens = (tokens, ...rest) => {
    steps += tokens.length + 1
    if (steps > TEMPLATE_LIMITS.steps)
      throw new TemplateBudgetExceeded(`template rendering exceeded its budget of ${TEMPLATE_LIMITS.steps} steps`)
    if (performance.now() > deadline)
      throw new TemplateBudgetExceeded(`template rendering exceeded its budget of ${TEMPLATE_LIMITS.renderMs} ms`)
    return renderTokens(tokens, ...rest)
  }
  const counted =
    <A extends unknown[]>(write: (...args: A) => string) =>
    (...args: A): string => {
      const out = write(...args)
      chars += typeof out === 'string' ? out.length : 0
      if (chars > maxChars)
        throw new TemplateBudgetExceeded(`template rendering exceeded its budget of ${maxChars} characters`)
      return out
    }
  writer.rawValue = counted(writer.rawValue.bind(writer))
  writer.escapedValue = counted(writer.escapedValue.bind(writer))
  writer.unescapedValue = counted(writer.unescapedValue.bind(writer))
  return writer.render(template, view, {}, config)
}
