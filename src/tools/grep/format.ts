// What the model reads from a grep result: pure formatting, one function per output mode.
import type { GrepFile, GrepResult } from "../../platform/search/index.ts"

/** Characters of a line shown at most. */
export const MAX_LINE = 2000

export type OutputMode = "content" | "files_with_matches" | "count"

export interface Formatted {
  readonly output: string
  /** Matching lines (content) or files (other modes) shown. */
  readonly shown: number
  /** Results that exist but are not shown. */
  readonly truncated: boolean
}

/**
 * Formats a result:
 * - content: `Found N matches in M files`, then per file `<path>:` and its lines (`  Line 12: text` for
 *   a match, `  Line 13- text` for context, `  --` between separate groups), files separated by a blank
 *   line;
 * - files_with_matches: `Found M files`, then one path per line;
 * - count: `Found N matches in M files`, then `<path>: <count>` per file.
 * Then, when results were dropped, how many and how to narrow; when the time limit cut the search, that.
 */
export function formatGrep(result: GrepResult, mode: OutputMode, timeLimit: string): Formatted {
  const { files, totalMatches, totalFiles, timedOut } = result
  if (totalFiles === 0) {
    return {
      output: timedOut
        ? `No matches found before the time limit of ${timeLimit}. Use a more specific path or include to search fewer files, or a simpler pattern (nested repeats such as (a+)+ can take exponential time).`
        : "No matches found",
      shown: 0,
      truncated: false,
    }
  }
  const out: string[] = []
  let shown: number
  let truncated: boolean
  if (mode === "content") {
    shown = files.reduce((sum, file) => sum + (file.lines ?? []).filter((line) => line.match).length, 0)
    truncated = totalMatches > shown
    out.push(`Found ${plural(totalMatches, "match", "matches")} in ${plural(totalFiles, "file", "files")}`)
    for (const file of files) out.push("", ...contentLines(file))
    if (truncated) {
      out.push(
        "",
        `(Showing the first ${shown} of ${totalMatches} matching lines, most recently modified files first. Use a more specific pattern, path or include to narrow the results.)`,
      )
    }
  } else {
    shown = files.length
    truncated = totalFiles > shown
    out.push(
      mode === "count"
        ? `Found ${plural(totalMatches, "match", "matches")} in ${plural(totalFiles, "file", "files")}`
        : `Found ${plural(totalFiles, "file", "files")}`,
    )
    for (const file of files) out.push(mode === "count" ? `${file.path}: ${file.count}` : file.path)
    if (truncated) {
      out.push(
        "",
        `(Showing the ${shown} most recently modified of ${totalFiles} files. Use a more specific pattern, path or include to narrow the results.)`,
      )
    }
  }
  if (timedOut) {
    out.push(
      "",
      `(The search stopped at its time limit of ${timeLimit}: the results and totals above cover only what was searched by then. Use a more specific path or include to search fewer files, or a simpler pattern (nested repeats such as (a+)+ can take exponential time).)`,
    )
  }
  return { output: out.join("\n"), shown, truncated }
}

function contentLines(file: GrepFile): string[] {
  const out = [`${file.path}:`]
  let previous: number | undefined
  for (const line of file.lines ?? []) {
    if (previous !== undefined && line.line > previous + 1) out.push("  --")
    out.push(`  Line ${line.line}${line.match ? ":" : "-"} ${cutLine(line.text)}`)
    previous = line.line
  }
  return out
}

/** The line, cut at MAX_LINE characters (never inside a surrogate pair) with `...` appended. */
export function cutLine(text: string): string {
  if (text.length <= MAX_LINE) return text
  let end = MAX_LINE
  const code = text.charCodeAt(end - 1)
  if (code >= 0xd800 && code <= 0xdbff) end--
  return `${text.slice(0, end)}...`
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`
}
