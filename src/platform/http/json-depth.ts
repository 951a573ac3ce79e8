/**
 * How deep a JSON body may nest. Our schemas go a few levels down; a body of 100,000 nested arrays
 * parses (JSON.parse is iterative) but then overflows the stack of every recursive walk after it
 * (the validator, the Idempotency-Key hash), which was a 500.
 */
export const MAX_JSON_DEPTH = 64

/** The characters that matter to nesting: brackets, braces, and the quote that opens a string. */
const STRUCTURAL = /["[\]{}]/g

/**
 * Whether JSON text opens more than `max` arrays/objects inside one another; strings are skipped.
 * One pass, no allocation. The runs between structural characters (numbers, literals, spaces) are
 * skipped by the regular expression engine, natively: a megabyte of digits took 2–4 ms of the
 * event loop character by character, and a fraction of it this way (issue 26.3).
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0
  const structural = new RegExp(STRUCTURAL)
  for (let m = structural.exec(text); m !== null; m = structural.exec(text)) {
    const c = text.charCodeAt(m.index)
    if (c === 0x22) structural.lastIndex = endOfString(text, m.index) + 1
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true
    } else depth--
  }
  return false
}

/**
 * Index of the quote closing the string opened at `open` (text.length if none). Found by indexOf,
 * natively, rather than character by character: an image upload is one string of megabytes.
 */
function endOfString(text: string, open: number): number {
  let at = open
  for (;;) {
    at = text.indexOf('"', at + 1)
    if (at === -1) return text.length
    // Escaped when an odd number of backslashes stands before it.
    let slashes = 0
    while (text.charCodeAt(at - 1 - slashes) === 0x5c) slashes++
    if (slashes % 2 === 0) return at
  }
}
