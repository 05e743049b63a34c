/**
 * Counts "\n" in `text[from, to)` by jumping between them with indexOf, which scans in native code and
 * allocates nothing: output can be hundreds of megabytes, and splitting it into lines would copy it all.
 */
export function countNewlines(text: string, from = 0, to = text.length): number {
  let count = 0
  let at = text.indexOf("\n", from)
  while (at !== -1 && at < to) {
    count++
    at = text.indexOf("\n", at + 1)
  }
  return count
}
