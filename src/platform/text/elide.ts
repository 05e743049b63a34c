// Shortening a message (an error the model reads) that echoes a huge value: a 5 MB path quoted in "not
// found", a pasted blob in "invalid URL". Its middle goes, with a marker saying how much; the words
// around it, which say what went wrong and what to do, stay. Outputs are bounded elsewhere (cut.ts, with
// the full text kept): an error has no full text worth keeping, since the model sent what it echoes.

export interface ElideLimits {
  /** The longest run of characters without white space kept whole (a path, a URL, a token). */
  readonly run: number
  /** The longest line kept whole. */
  readonly line: number
  /** The most characters kept in all. */
  readonly total: number
}

/** For errors: a long path or URL still shows whole, a multi-line diff of an edit too. */
export const ERROR_LIMITS: ElideLimits = { run: 512, line: 2000, total: 10_000 }

/**
 * `text` with the middle of each over-long run cut, then of each over-long line, then of the whole,
 * each to its limit (the marker `…[N characters cut]…` included). Text within the limits comes back as
 * it is. Linear in the length of `text`; cuts land between code points.
 */
export function elide(text: string, limits: ElideLimits = ERROR_LIMITS): string {
  if (text.length <= limits.run) return text
  const runs = text.replace(new RegExp(`\\S{${limits.run + 1},}`, "g"), (run) => cutMiddle(run, limits.run))
  const lines = runs
    .split("\n")
    .map((line) => (line.length > limits.line ? cutMiddle(line, limits.line) : line))
    .join("\n")
  return lines.length > limits.total ? cutMiddle(lines, limits.total) : lines
}

/** The longest marker: `…[999,999,999,999 characters cut]…`. */
const MARKER_ROOM = 36

/** `text` in at most `length` characters: two thirds from its start, one from its end, the cut marked. */
function cutMiddle(text: string, length: number): string {
  const keep = Math.max(length - MARKER_ROOM, 2)
  const start = boundary(text, Math.ceil((keep * 2) / 3))
  const end = boundary(text, text.length - Math.floor(keep / 3))
  if (end <= start) return text
  return `${text.slice(0, start)}…[${(end - start).toLocaleString("en-US")} characters cut]…${text.slice(end)}`
}

/** `index`, moved back one when it would split a surrogate pair. */
function boundary(text: string, index: number): number {
  const unit = text.charCodeAt(index)
  return unit >= 0xdc00 && unit <= 0xdfff && index > 0 ? index - 1 : index
}
