import type { Direction } from "./limits.ts"

/**
 * A tool that reads a text file page by page declares how, so the runtime can name the exact call that
 * reads the rest of a truncated output (under the name the tool is registered with) and size its pages.
 */
export interface Paging {
  /** Input field names: the file's path, the first line to return (1-based), how many lines. */
  readonly path: string
  readonly offset: string
  readonly limit: string
  /** The most lines one call returns. */
  readonly maxLines: number
  /** The most bytes one call returns, counted as each line's UTF-8 bytes plus one (its newline). */
  readonly maxBytes: number
  /** Lines longer than this many characters come back shortened. */
  readonly maxLineLength: number
}

/**
 * How the model reads a saved output page by page: the declaration of the tool that pages through files
 * (`Paging`) and the name it is registered under. The composition root finds it among the tools the
 * agent may use; none means no such tool is offered.
 */
export type Pager = Paging & { readonly tool: string }

export interface HintOptions {
  readonly outputPath: string
  readonly direction: Direction
  /** The agent may start a subagent (the task tool is not denied to it). */
  readonly canDelegate: boolean
  readonly firstCutLine: number
  readonly lastCutLine: number
  /** The tool that reads the saved file page by page, if the agent has one. */
  readonly pager?: Pager | undefined
  /** The saved text: the pages of the cut lines are then sized exactly. */
  readonly text?: string
}

/**
 * Tells the model that the call did succeed (so it does not retry) and how to get at the rest. Without a
 * subagent it names the exact calls, with real line numbers, that read what was cut: a model told only
 * "use offset/limit" tends to read the file from the top.
 */
export function hint(options: HintOptions): string {
  const saved = `The tool call succeeded but the output was truncated. Full output saved to: ${options.outputPath}`
  if (options.canDelegate) {
    return (
      `${saved}\nUse the Task tool to have explore agent process this file with Grep and Read (with offset/limit). ` +
      "Do NOT read the full file yourself - delegate to save context."
    )
  }
  const [from, to] =
    options.direction === "head" ? [options.firstCutLine, options.lastCutLine] : [1, options.lastCutLine]
  return `${saved}\nSearch that file for what you need, or ${readRest({ pager: options.pager, text: options.text, path: options.outputPath, from, to })}`
}

export interface ReadRestOptions {
  readonly pager: Pager | undefined
  /** The saved file. */
  readonly path: string
  /** The lines to read, 1-based, both included. */
  readonly from: number
  readonly to: number
  /** The file's text, when at hand: each page is then sized to fit, and the calls are listed. */
  readonly text?: string | undefined
}

/** Pages listed call by call; beyond this the first is named and the rest follow page by page. */
const LISTED_PAGES = 4

/** What a line past `maxLineLength` may cost on top of its kept characters (the shortening marker). */
const CUT_MARKER_ALLOWANCE = 64

/**
 * The end of a sentence that names the calls reading lines `from..to` of a saved file, within the
 * pager's page limits:
 * 1. No pager: says so, and which lines hold the rest.
 * 2. With the text: pages sized as the pager counts (each line's UTF-8 bytes and its newline, a long
 *    line as shortened), over-counted if anything, so a page never stops before its `limit`. Up to
 *    four pages are listed as exact calls; more: the first one, then page by page.
 * 3. Without it: the first call, and page by page from the offset each page ends with.
 */
export function readRest(options: ReadRestOptions): string {
  const { pager, from, to } = options
  const span = from === to ? `line ${from}` : `lines ${from}-${to}`
  if (!pager) return `read ${span} of it with any tool that reads files (none that pages is offered here).`
  const call = (offset: number, limit?: number) =>
    `${pager.tool} ${JSON.stringify({ [pager.path]: options.path, [pager.offset]: offset, ...(limit === undefined ? {} : { [pager.limit]: limit }) })}`
  const size = `a page holds up to ${pager.maxLines} lines or ${kilobytes(pager.maxBytes)}`
  const onwards = "each page ends with the offset to continue from"
  const pages = options.text === undefined ? undefined : pagesOf(options.text, from, to, pager)
  if (!pages) return `read ${span} page by page (${size}; ${onwards}), starting with: ${call(from)}`
  if (pages.length === 1) return `read ${span} with: ${call(from, pages[0]!.limit)}`
  if (pages.length <= LISTED_PAGES)
    return `read ${span} in ${pages.length} calls (${size}): ${pages.map((page) => call(page.offset, page.limit)).join(", then ")}`
  return `read ${span} page by page (${size}; ${onwards}), starting with: ${call(from, pages[0]!.limit)}`
}

/**
 * The pages (offset, limit) that cover lines `from..to` of `text`, counted as the pager counts; at most
 * `LISTED_PAGES + 1` of them (enough to know there are more).
 */
export function pagesOf(
  text: string,
  from: number,
  to: number,
  limits: Pick<Paging, "maxLines" | "maxBytes" | "maxLineLength">,
): { offset: number; limit: number }[] {
  const pages: { offset: number; limit: number }[] = []
  let start = lineStart(text, from)
  let line = from
  let page = { offset: from, limit: 0, bytes: 0 }
  while (line <= to && start <= text.length && pages.length <= LISTED_PAGES) {
    const newline = text.indexOf("\n", start)
    const end = newline === -1 ? text.length : newline
    const cost = lineCost(text, start, end, limits.maxLineLength)
    if (page.limit > 0 && (page.limit === limits.maxLines || page.bytes + cost > limits.maxBytes)) {
      pages.push({ offset: page.offset, limit: page.limit })
      page = { offset: line, limit: 0, bytes: 0 }
    }
    page.limit++
    page.bytes += cost
    line++
    if (newline === -1) break
    start = newline + 1
  }
  if (page.limit > 0 && pages.length <= LISTED_PAGES) pages.push({ offset: page.offset, limit: page.limit })
  return pages
}

/** The index where 1-based line `line` starts (past the end when there are fewer lines). */
function lineStart(text: string, line: number): number {
  let at = 0
  for (let current = 1; current < line; current++) {
    const newline = text.indexOf("\n", at)
    if (newline === -1) return text.length + 1
    at = newline + 1
  }
  return at
}

/** A line's bytes in a page, never less than the pager counts: its UTF-8 size (shortened past the limit) and a newline. */
function lineCost(text: string, start: number, end: number, maxLineLength: number): number {
  if (end - start > maxLineLength)
    return Buffer.byteLength(text.slice(start, start + maxLineLength)) + CUT_MARKER_ALLOWANCE + 1
  return Buffer.byteLength(text.slice(start, end)) + 1
}

function kilobytes(bytes: number): string {
  return bytes % 1024 === 0 ? `${bytes / 1024} KB` : `${bytes} bytes`
}
