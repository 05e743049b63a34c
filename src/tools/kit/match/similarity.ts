/**
 * How alike two lines are, from 0 (nothing in common) to 1 (equal). Used by the merge to tell which old
 * line a changed line replaces (merge.ts) and by the not-found message to find the closest region of
 * the file (closest.ts).
 */

/** Above this many cells (length × length) Levenshtein is too slow for a line; bigrams are used instead. */
const LEVENSHTEIN_MAX_CELLS = 250_000

/** Edit distance (insertions, deletions, substitutions) between `a` and `b`, in UTF-16 code units. */
export function levenshtein(a: string, b: string): number {
  if (a === b) return 0
  if (a.length === 0) return b.length
  if (b.length === 0) return a.length
  // One row of the table, over the shorter string.
  const [long, short] = a.length >= b.length ? [a, b] : [b, a]
  const codes = new Uint16Array(short.length)
  for (let j = 0; j < short.length; j++) codes[j] = short.charCodeAt(j)
  const row = new Int32Array(short.length + 1)
  for (let j = 0; j <= short.length; j++) row[j] = j
  for (let i = 1; i <= long.length; i++) {
    let diagonal = row[0]!
    let left = i
    row[0] = i
    const char = long.charCodeAt(i - 1)
    for (let j = 1; j <= short.length; j++) {
      const above = row[j]!
      let value = char === codes[j - 1] ? diagonal : diagonal + 1
      if (left + 1 < value) value = left + 1
      if (above + 1 < value) value = above + 1
      row[j] = value
      left = value
      diagonal = above
    }
  }
  return row[short.length]!
}

/**
 * `1 − levenshtein / longer length` (opencode's score for the lines of a block). Two empty strings
 * are equal (1). Very long pairs are compared by bigrams instead, so one minified line cannot stall
 * an edit.
 */
export function similarity(a: string, b: string): number {
  if (a === b) return 1
  const longer = Math.max(a.length, b.length)
  if (a.length * b.length > LEVENSHTEIN_MAX_CELLS) return dice(bigrams(a), bigrams(b))
  return 1 - levenshtein(a, b) / longer
}

/** The character pairs of `text` as sorted codes, for `dice`. A one-character text is its own pair. */
export function bigrams(text: string): Uint32Array {
  if (text.length === 0) return new Uint32Array(0)
  if (text.length === 1) return Uint32Array.of(text.charCodeAt(0) << 16)
  const codes = new Uint32Array(text.length - 1)
  for (let i = 0; i < codes.length; i++)
    codes[i] = ((text.charCodeAt(i) << 16) | text.charCodeAt(i + 1)) >>> 0
  return codes.sort()
}

/** Sørensen–Dice coefficient of two sorted bigram multisets: 2 × shared / (|a| + |b|). */
export function dice(a: Uint32Array, b: Uint32Array): number {
  if (a.length === 0 && b.length === 0) return 1
  if (a.length === 0 || b.length === 0) return 0
  let shared = 0
  let i = 0
  let j = 0
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      shared++
      i++
      j++
    } else if (a[i]! < b[j]!) i++
    else j++
  }
  return (2 * shared) / (a.length + b.length)
}
