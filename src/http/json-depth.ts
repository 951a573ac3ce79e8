/**
 * How deep a JSON body may nest. Our schemas go a few levels down; a body of 100,000 nested arrays
 * parses (JSON.parse is iterative) but then overflows the stack of every recursive walk after it
 * (the validator, the Idempotency-Key hash), which was a 500.
 */
export const MAX_JSON_DEPTH = 64

/** Whether JSON text opens more than `max` arrays/objects inside one another; strings are skipped. One pass, no allocation. */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++ // backslash: skip the escaped character
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return false
}
