/** How many lines (or entries) of a page the metadata preview keeps. */
export const PREVIEW_LINES = 20

/** "50 KB" for 51,200 bytes: the label opencode's footer uses. */
export function bytesLabel(maxBytes: number): string {
  return maxBytes % 1024 === 0 ? `${maxBytes / 1024} KB` : `${maxBytes} bytes`
}

export interface FilePage {
  /** The absolute path, as shown in `<path>`. */
  readonly path: string
  /** Number of the first line of the page (1-based). */
  readonly offset: number
  readonly lines: readonly string[]
  /** Number of the last line shown (`offset - 1` when none is). */
  readonly lastLine: number
  readonly totalLines: number
  /** The page stopped early because of the byte budget. */
  readonly truncatedByBytes: boolean
  /** The byte budget, for the footer's label. */
  readonly maxBytes: number
}

/**
 * opencode's file page: `<path>`, `<type>file</type>`, `<content>` with `<n>: <line>` lines, a blank line,
 * one footer (capped by bytes / more lines / end of file), `</content>`.
 */
export function formatFilePage(page: FilePage): string {
  // Concatenated, not mapped and joined: the page is flattened once, when it is serialised.
  let body = ""
  const { lines, offset } = page
  for (let index = 0; index < lines.length; index++)
    body += index === 0 ? `${offset}: ${lines[0]}` : `\n${offset + index}: ${lines[index]}`
  return [
    `<path>${page.path}</path>`,
    "<type>file</type>",
    "<content>",
    `${body}\n\n${fileFooter(page)}`,
    "</content>",
  ].join("\n")
}

export function fileFooter(page: Omit<FilePage, "path" | "lines">): string {
  const next = page.lastLine + 1
  if (page.truncatedByBytes)
    return `(Output capped at ${bytesLabel(page.maxBytes)}. Showing lines ${page.offset}-${page.lastLine}. Use offset=${next} to continue.)`
  if (page.lastLine < page.totalLines)
    return `(Showing lines ${page.offset}-${page.lastLine} of ${page.totalLines}. Use offset=${next} to continue.)`
  return `(End of file - total ${page.totalLines} lines)`
}

export interface DirectoryPage {
  readonly path: string
  /** Number of the first entry of the page (1-based). */
  readonly offset: number
  /** The page's entries; directories end with `/`. */
  readonly entries: readonly string[]
  readonly totalEntries: number
}

/** opencode's directory page: `<path>`, `<type>directory</type>`, `<entries>` with a count footer. */
export function formatDirectoryPage(page: DirectoryPage): string {
  const last = page.offset + page.entries.length - 1
  const footer =
    last < page.totalEntries
      ? `\n(Showing ${page.entries.length} of ${page.totalEntries} entries. Use 'offset' parameter to read beyond entry ${last})`
      : `\n(${page.totalEntries} entries)`
  return [
    `<path>${page.path}</path>`,
    "<type>directory</type>",
    "<entries>",
    page.entries.join("\n"),
    footer,
    "</entries>",
  ].join("\n")
}

export interface Instruction {
  readonly path: string
  readonly content: string
}

/** Instruction files as one `<system-reminder>` block, each introduced by `Instructions from: <path>`. */
export function formatInstructions(instructions: readonly Instruction[]): string {
  const blocks = instructions.map((item) => `Instructions from: ${item.path}\n${item.content}`)
  return `<system-reminder>\n${blocks.join("\n\n")}\n</system-reminder>`
}

/** `File not found: <path>`, plus up to three likely siblings. */
export function notFoundMessage(path: string, suggestions: readonly string[]): string {
  const message = `File not found: ${path}`
  if (suggestions.length === 0) return message
  return `${message}\n\nDid you mean one of these?\n${suggestions.join("\n")}`
}

/**
 * Siblings whose name contains the missing name, or is contained in it (case-insensitive), at most
 * `max`, in the order given.
 */
export function similarNames(missing: string, siblings: readonly string[], max = 3): string[] {
  const wanted = missing.toLowerCase()
  if (wanted === "") return []
  const out: string[] = []
  for (const name of siblings) {
    const candidate = name.toLowerCase()
    if (candidate.includes(wanted) || wanted.includes(candidate)) out.push(name)
    if (out.length >= max) break
  }
  return out
}
