import { BLOCK_ELEMENTS, DROPPED_ELEMENTS } from "./markup-filter.ts"
import { depthCounter } from "./nesting.ts"

// The element's text is not shown, nor that of anything inside it.
const SKIPPED = new Set<string>([...DROPPED_ELEMENTS, "head", "canvas", "select"])

// Elements that start a new line of text: the blocks, and a disclosure's summary and body.
const BLOCKS = new Set([...BLOCK_ELEMENTS, "details", "summary"])

/**
 * The readable text of an HTML page (htmlparser2's streaming parser): the text of the body with
 * scripts, styles, frames, embedded objects and the head left out, one line per block element,
 * entities decoded, runs of blank space collapsed. A page nesting past MAX_PARSE_DEPTH throws
 * NestedTooDeep (nesting.ts): the parser's cost would grow with the square of its size.
 */
export async function htmlToText(html: string): Promise<string> {
  const { Parser } = await import("htmlparser2")
  // Flowing text is collapsed; preformatted text is kept as it is.
  const segments: { text: string; pre: boolean }[] = [{ text: "", pre: false }]
  const append = (text: string, pre: boolean) => {
    const last = segments.at(-1)!
    if (last.pre === pre) last.text += text
    else segments.push({ text, pre })
  }
  let skipping = 0
  let preformatted = 0
  const depth = depthCounter()
  const parser = new Parser(
    {
      onopentag(name) {
        depth.open()
        if (SKIPPED.has(name)) skipping++
        if (name === "br" && skipping === 0) append("\n", preformatted > 0)
        if (BLOCKS.has(name)) append("\n", false)
        if (name === "pre") preformatted++
      },
      ontext(text) {
        if (skipping === 0) append(text, preformatted > 0)
      },
      onclosetag(name) {
        depth.close()
        if (SKIPPED.has(name)) skipping = Math.max(0, skipping - 1)
        if (name === "pre") preformatted = Math.max(0, preformatted - 1)
        if (BLOCKS.has(name)) append("\n", false)
      },
    },
    { decodeEntities: true },
  )
  parser.write(html)
  parser.end()
  const text = segments.map((segment) => (segment.pre ? segment.text : collapse(segment.text))).join("")
  return text.replace(/\n{3,}/g, "\n\n").trim()
}

/** Blank space as a browser shows flowing text: one space within a line, no blank-only lines. */
function collapse(text: string): string {
  return text
    .split("\n")
    .map((line) => line.replace(/[ \t\f\r\u00a0]+/g, " ").trim())
    .join("\n")
}
