// Applies the chunks of one `*** Update File` to a file's content. Pure: content in, content out.

import { indentMapping } from "./indent.ts"
import type { Chunk, ChunkLine } from "./parse.ts"
import { oldLines } from "./parse.ts"
import { LineMatcher, normalise, PASS_DESCRIPTION, type Pass } from "./seek.ts"

export type ApplyResult =
  | {
      ok: true
      content: string
      /** Lines added and removed, from a line diff of each changed region (moved context is not counted). */
      additions: number
      deletions: number
      /** What was tolerated to make the chunks fit (looser matching, re-indentation), for the model. */
      notes: string[]
    }
  | { ok: false; message: string }

/** A line of the file with the line break that ended it ("" for a last line without one). */
type Line = { text: string; eol: string }

/** One chunk's replacement: `count` file lines from `start` become `lines`. */
type Edit = { start: number; count: number; lines: Line[] }

const SHOWN_LINES = 5

/**
 * Applies update chunks to `original`.
 *
 * 1. Split off a leading BOM; split into lines, each keeping its own line break; the dominant
 *    break (CRLF or LF) is used for added lines.
 * 2. For each chunk in order, from a cursor that starts at line 1 and moves past every chunk:
 *    a. each `@@` context moves the search start just past the first line matching it (4 passes,
 *       then a line starting with it);
 *    b. a pure insertion (no context or removed lines) goes right after its last `@@` context
 *       line, or at the end of the file when it has none or is marked `*** End of File`;
 *    c. otherwise the old lines are searched (4 passes: exact, trailing whitespace, both sides
 *       trimmed, Unicode punctuation folded); `*** End of File` searches from the end back;
 *       when not found after the context line, the context line itself is tried as the start;
 *       a trailing empty old line is dropped as a last resort.
 * 3. Context lines keep the file's own text; added lines get the file's indentation when the
 *    chunk matched only by ignoring it and the difference is consistent.
 * 4. Reassemble: untouched lines keep their breaks; the file ends with a newline if it did, or if
 *    the patch changed its last line.
 */
export function applyChunks(original: string, path: string, chunks: Chunk[]): ApplyResult {
  const bom = original.startsWith("\uFEFF")
  const body = bom ? original.slice(1) : original
  const { texts, eols, eol } = splitLines(body)
  const matcher = new LineMatcher(texts)
  const edits: Edit[] = []
  const notes: string[] = []
  let cursor = 0

  for (const [k, chunk] of chunks.entries()) {
    const where =
      chunks.length > 1
        ? ` (chunk ${k + 1} of ${chunks.length}, patch line ${chunk.line})`
        : ` (patch line ${chunk.line})`

    // a. context headers
    let start = cursor
    let contextLine: number | undefined
    for (const context of chunk.contexts) {
      const found = matcher.seek([context], start)
      const index = found?.index ?? matcher.seekPrefix(context, start)
      if (!found && index !== undefined) {
        notes.push(`${path}: context "@@ ${context}" matched the start of line ${index + 1}`)
      }
      if (index === undefined) {
        return fail(
          `Failed to find context "@@ ${context}" in ${path}${where}, searching from line ${start + 1}.${closest(matcher, [context], start)}`,
        )
      }
      contextLine = index
      start = index + 1
    }

    // b. pure insertion
    let chunkLines = chunk.lines
    let old = oldLines(chunk)
    if (old.length === 0) {
      const at = chunk.endOfFile || contextLine === undefined ? texts.length : contextLine + 1
      edits.push({ start: at, count: 0, lines: chunkLines.map((line) => ({ text: line.text, eol })) })
      cursor = at
      continue
    }

    // c. old lines
    let found = locate(matcher, old, start, chunk.endOfFile, contextLine)
    if (!found && old.at(-1) === "") {
      chunkLines = dropLastOld(chunkLines)
      old = old.slice(0, -1)
      if (old.length > 0) found = locate(matcher, old, start, chunk.endOfFile, contextLine)
    }
    if (!found) {
      const expected = oldLines(chunk)
      return fail(
        `Failed to find expected lines in ${path}${where}, searching from line ${start + 1}${chunk.endOfFile ? " (anchored at the end of the file)" : ""}:\n` +
          show(expected) +
          closest(matcher, expected, start),
      )
    }

    // 3. build the replacement
    const reindent =
      found.pass === "whitespace" || found.pass === "unicode"
        ? indentMapping(old, texts.slice(found.index, found.index + old.length))
        : undefined
    const replacement: Line[] = []
    let j = found.index
    for (const line of chunkLines) {
      if (line.op === " ") {
        replacement.push({ text: texts[j]!, eol: eols[j]! })
        j++
      } else if (line.op === "-") j++
      else replacement.push({ text: reindent ? reindent(line.text) : line.text, eol })
    }
    if (found.pass !== "exact") {
      notes.push(
        `${path}: chunk ${k + 1} matched ${PASS_DESCRIPTION[found.pass]} at line ${found.index + 1}` +
          (reindent ? "; added lines re-indented to the file's indentation" : ""),
      )
    }
    edits.push({ start: found.index, count: old.length, lines: replacement })
    cursor = found.index + old.length
  }

  // 4. reassemble: untouched runs are copied from the original text as they are
  const starts = new Array<number>(texts.length + 1)
  starts[0] = 0
  for (let i = 0; i < texts.length; i++) starts[i + 1] = starts[i]! + texts[i]!.length + eols[i]!.length
  const parts: string[] = []
  let unterminated = false
  const write = (text: string, withoutBreak: boolean) => {
    // A line that is no longer the last one (something follows it now) needs a break.
    if (unterminated) parts.push(eol)
    parts.push(text)
    unterminated = withoutBreak
  }
  let additions = 0
  let deletions = 0
  let next = 0
  const untouched = (end: number) => {
    if (end > next) write(body.slice(starts[next], starts[end]), eols[end - 1] === "")
    next = end
  }
  for (const edit of edits) {
    untouched(edit.start)
    const common = commonLines(
      texts.slice(edit.start, edit.start + edit.count),
      edit.lines.map((line) => line.text),
    )
    additions += edit.lines.length - common
    deletions += edit.count - common
    for (const line of edit.lines) write(line.text + line.eol, line.eol === "")
    next = edit.start + edit.count
  }
  untouched(texts.length)
  return { ok: true, content: (bom ? "\uFEFF" : "") + parts.join(""), additions, deletions, notes }
}

/** Splits content into lines and the break after each; a final break does not start another line. */
function splitLines(content: string): { texts: string[]; eols: string[]; eol: string } {
  if (content === "") return { texts: [], eols: [], eol: "\n" }
  const texts = content.split("\n")
  const eols = new Array<string>(texts.length)
  let crlf = 0
  if (!content.includes("\r")) eols.fill("\n")
  else
    for (let i = 0; i < texts.length; i++) {
      const text = texts[i]!
      if (text.length > 0 && text.charCodeAt(text.length - 1) === 13) {
        texts[i] = text.slice(0, -1)
        eols[i] = "\r\n"
        crlf++
      } else eols[i] = "\n"
    }
  let lf = texts.length - crlf
  // The piece after the last break: empty when the content ends with one, else a last line without.
  const last = texts.length - 1
  if (eols[last] === "\r\n") {
    texts[last] += "\r"
    crlf--
  } else lf--
  eols[last] = ""
  if (texts[last] === "") {
    texts.pop()
    eols.pop()
  }
  return { texts, eols, eol: crlf > lf ? "\r\n" : "\n" }
}

function locate(
  matcher: LineMatcher,
  old: readonly string[],
  start: number,
  endOfFile: boolean,
  contextLine: number | undefined,
): { index: number; pass: Pass } | undefined {
  if (endOfFile) {
    // Anchored: ending at the last line, or at the last non-blank line (trailing blank lines).
    const lines = matcher.lines
    for (const stop of new Set([lines.length, lastNonBlank(lines) + 1])) {
      const index = stop - old.length
      const pass = index >= start ? matcher.matchAt(old, index) : undefined
      if (pass) return { index, pass }
    }
  }
  const found = matcher.seek(old, start, endOfFile)
  if (found || contextLine === undefined) return found
  // The `@@` line was the first line to change (`@@ def f():` then `-def f():`): start at it.
  return matcher.seek(old, contextLine, endOfFile)
}

function lastNonBlank(lines: readonly string[]): number {
  let i = lines.length - 1
  while (i >= 0 && lines[i]!.trim() === "") i--
  return i
}

/** Drops the last context or removed line (an empty one) from a chunk's lines. */
function dropLastOld(lines: readonly ChunkLine[]): ChunkLine[] {
  const at = lines.findLastIndex((line) => line.op !== "+")
  const out = lines.slice()
  const dropped = out.splice(at, 1)[0]!
  // An empty context line is also the last new line; drop a trailing empty added line with it.
  if (dropped.op === " " && out.at(-1)?.op === "+" && out.at(-1)?.text === "") out.pop()
  return out
}

/** The expected lines, the first few of them, indented for an error message. */
function show(expected: readonly string[]): string {
  const shown = expected.slice(0, SHOWN_LINES).map((line) => `  ${line}`)
  if (expected.length > SHOWN_LINES) shown.push(`  ... (${expected.length - SHOWN_LINES} more lines)`)
  return shown.join("\n")
}

/**
 * Where the file comes closest to the expected lines: the longest run of them (compared loosely)
 * that starts at the first expected line, and the first line that differs there.
 */
function closest(matcher: LineMatcher, expected: readonly string[], start: number): string {
  const forms = matcher.forms("unicode")
  const wanted = expected.map((line) => normalise("unicode", line))
  let best = -1
  let bestLength = 0
  for (let i = 0; i < forms.length; i++) {
    if (forms[i] !== wanted[0]) continue
    let length = 1
    while (length < wanted.length && i + length < forms.length && forms[i + length] === wanted[length])
      length++
    // Prefer the longest run; among equals, the first one at or after the search start.
    if (length > bestLength || (length === bestLength && best < start && i >= start)) {
      best = i
      bestLength = length
    }
  }
  if (best === -1) return `\nThe first expected line ${JSON.stringify(expected[0])} is not in the file.`
  const before = best < start ? ` (before the search start: chunks must be in file order)` : ""
  if (bestLength === wanted.length) {
    return `\nThese lines are at line ${best + 1}${before}.`
  }
  const differs = best + bestLength
  const found = differs < forms.length ? JSON.stringify(matcher.lines[differs]) : "the end of the file"
  return (
    `\nClosest: line ${best + 1}${before} matches the first ${bestLength} expected line${bestLength === 1 ? "" : "s"}, ` +
    `then line ${differs + 1} is ${found} where the patch expects ${JSON.stringify(expected[bestLength])}.`
  )
}

/** The length of a longest common subsequence of two short runs of lines (bounded; else a trim). */
function commonLines(a: readonly string[], b: readonly string[]): number {
  let head = 0
  while (head < a.length && head < b.length && a[head] === b[head]) head++
  let tail = 0
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++
  const x = a.slice(head, a.length - tail)
  const y = b.slice(head, b.length - tail)
  if (x.length === 0 || y.length === 0 || x.length * y.length > 4_000_000) return head + tail
  let previous = new Uint32Array(y.length + 1)
  let current = new Uint32Array(y.length + 1)
  for (let i = 1; i <= x.length; i++) {
    for (let j = 1; j <= y.length; j++) {
      current[j] = x[i - 1] === y[j - 1] ? previous[j - 1]! + 1 : Math.max(previous[j]!, current[j - 1]!)
    }
    ;[previous, current] = [current, previous]
  }
  return head + tail + previous[y.length]!
}

function fail(message: string): { ok: false; message: string } {
  return { ok: false, message }
}
