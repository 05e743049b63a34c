/**
 * How deep a page's elements may nest while it is parsed. htmlparser2 keeps its open elements in an
 * array it grows at the front, so each element opened costs as much as the depth it opens at: past a
 * few thousand levels a page's cost grows with the square of its size (1 MiB of `<div><span>`: 16 s).
 * No page a person reads nests this deep (browsers stop building depth at 512), so such a page is refused.
 */
export const MAX_PARSE_DEPTH = 2048

/**
 * How deep the slimmed markup nests before elements are written flat, their text kept (as browsers
 * do past 512): the DOM turndown walks, recursively, stays shallow enough for the stack.
 */
export const MAX_WRITTEN_DEPTH = 512

/** Thrown out of a parser's callbacks when the page nests deeper than MAX_PARSE_DEPTH. */
export class NestedTooDeep extends Error {
  constructor() {
    super(`the page nests elements more than ${MAX_PARSE_DEPTH} deep`)
    this.name = "NestedTooDeep"
  }
}

/** Counts the parser's open elements (each open is matched by a close, explicit or implied). */
export function depthCounter(): { open(): void; close(): void } {
  let depth = 0
  return {
    open() {
      if (++depth > MAX_PARSE_DEPTH) throw new NestedTooDeep()
    },
    close() {
      depth = Math.max(0, depth - 1)
    },
  }
}

/** What the model reads when a page nests too deep to convert, with what it can do instead. */
export function tooDeepMessage(url: string, format: "markdown" | "text"): string {
  return `Cannot convert ${url} to ${format}: the page nests elements more than ${MAX_PARSE_DEPTH} deep (browsers stop at 512), which no readable page does. Fetch it with format "html" to see the markup as served.`
}
