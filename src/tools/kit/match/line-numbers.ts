// Offsets in a text as the 1-based line numbers an error message names.

/** 1-based line numbers of ascending offsets, counting line breaks once. */
export function lineNumbers(text: string, offsets: readonly number[]): number[] {
  const out: number[] = []
  let line = 1
  let at = 0
  for (const offset of offsets) {
    for (
      let next = text.indexOf("\n", at);
      next !== -1 && next < offset;
      next = text.indexOf("\n", next + 1)
    ) {
      line++
      at = next + 1
    }
    out.push(line)
  }
  return out
}
