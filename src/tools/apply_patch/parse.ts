// Parses the Codex apply_patch format into file hunks. Pure: no file system access.
//
//   *** Begin Patch
//   *** Add File: <path>          followed by "+" lines
//   *** Delete File: <path>       nothing follows
//   *** Update File: <path>       optionally "*** Move to: <path>", then chunks:
//   @@ <optional context line>    one or more stacked "@@" lines start a chunk
//    context / -removed / +added  the chunk's lines
//   *** End of File               the chunk anchors at the end of the file
//   *** End Patch

/** One line of an update chunk: kept (" "), removed ("-") or added ("+"). */
export type ChunkLine = { op: " " | "-" | "+"; text: string }

/** One `@@` section of an update. */
export type Chunk = {
  /** The `@@ <text>` headers, outermost first; each moves the search start just past the line matching it. */
  contexts: string[]
  lines: ChunkLine[]
  /** `*** End of File` followed the chunk: it is searched from the end of the file. */
  endOfFile: boolean
  /** 1-based line in the patch text where the chunk starts, for error messages. */
  line: number
}

export type FileHunk =
  | { type: "add"; path: string; content: string; line: number }
  | { type: "delete"; path: string; line: number }
  | { type: "update"; path: string; movePath?: string; chunks: Chunk[]; line: number }

export type ParseResult = { ok: true; hunks: FileHunk[] } | { ok: false; message: string }

/** The lines a chunk expects to find in the file (context and removed lines), in order. */
export function oldLines(chunk: Chunk): string[] {
  return chunk.lines.filter((line) => line.op !== "+").map((line) => line.text)
}

/** The lines a chunk leaves in their place (context and added lines), in order. */
export function newLines(chunk: Chunk): string[] {
  return chunk.lines.filter((line) => line.op !== "-").map((line) => line.text)
}

const BEGIN = "*** Begin Patch"
const END = "*** End Patch"
const ADD = "*** Add File:"
const DELETE = "*** Delete File:"
const UPDATE = "*** Update File:"
const MOVE = "*** Move to:"
const END_OF_FILE = "*** End of File"

/** `apply_patch <<'EOF'`, `cat <<EOF`, `<<"EOF"`, `cat <<'EOF' | apply_patch`, with `<<-` too. */
const HEREDOC_OPEN =
  /^(?:(?:cat|apply_patch|applypatch)\s*)?<<-?\s*(['"]?)([A-Za-z_][\w.-]*)\1(?:\s*\|\s*(?:apply_patch|applypatch))?$/
/** A heredoc opener behind `cd <dir> &&`: the patch would be relative to another directory. */
const HEREDOC_CD = /^cd\s+.+&&\s*(?:apply_patch|applypatch)\s*<</
/** A unified-diff range header, `@@ -12,7 +12,8 @@ optional text`: the numbers are ignored. */
const RANGE_HEADER = /^@@\s+-\d+(?:,\d+)?\s+\+\d+(?:,\d+)?\s+@@\s?(.*)$/
/** The gutter the read tool prints before each line: `12: text` (and `12:` for an empty line). */
const GUTTER = /^\s*(\d+)(?:: |:$)/

const EXPECTED_HEADER = `"${ADD} <path>", "${DELETE} <path>", "${UPDATE} <path>" or "${END}"`

/**
 * Parses a patch.
 *
 * 1. Normalise CRLF to LF, drop blank lines around the patch and a heredoc wrapper
 *    (`apply_patch <<'EOF'` … `EOF`, with or without `cat`).
 * 2. Require `*** Begin Patch` first and `*** End Patch` last (surrounding whitespace allowed).
 * 3. Read file sections in order; an unknown `***` header or a line without a valid prefix is an
 *    error naming its line number and what was expected there.
 * 4. In each update chunk, strip read-tool gutters (`12: `) when every context and removed line
 *    carries one with consecutive numbers.
 * 5. An empty patch, or one without file sections, is an error.
 */
export function parsePatch(text: string): ParseResult {
  if (text.trim() === "") return fail(`patch is empty; write "${BEGIN}", the file sections, then "${END}".`)
  const lines = text.replace(/\r\n/g, "\n").split("\n")
  let first = nextNonBlank(lines, 0)
  let last = previousNonBlank(lines, lines.length - 1)

  const opener = lines[first]!.trim()
  if (HEREDOC_CD.test(opener)) {
    return fail(
      `line ${first + 1}: the patch is run after "cd"; write it without the cd, with paths relative to the project.`,
    )
  }
  const heredoc = HEREDOC_OPEN.exec(opener)
  if (heredoc) {
    first = nextNonBlank(lines, first + 1)
    if (last > first && lines[last]!.trim() === heredoc[2]) last = previousNonBlank(lines, last - 1)
  }

  if (first > last || lines[first]!.trim() !== BEGIN) {
    const found = first < lines.length ? lines[first]! : ""
    return fail(`line ${first + 1}: expected "${BEGIN}", found ${quote(found)}`)
  }
  if (last === first)
    return fail(`line ${first + 1}: missing "${END}" after "${BEGIN}"; add it as the last line.`)
  if (lines[last]!.trim() !== END) {
    return fail(
      `line ${last + 1}: expected "${END}" as the last line, found ${quote(lines[last]!)} (is the patch cut off?)`,
    )
  }

  const parser = new Parser(lines, first + 1, last)
  const result = parser.sections()
  if (!result.ok) return result
  if (result.hunks.length === 0) {
    return fail(`empty patch: no file sections between "${BEGIN}" and "${END}"; expected ${EXPECTED_HEADER}`)
  }
  return result
}

class Parser {
  private readonly lines: readonly string[]
  private readonly end: number
  private i: number

  constructor(lines: readonly string[], start: number, end: number) {
    this.lines = lines
    this.i = start
    this.end = end
  }

  sections(): ParseResult {
    const hunks: FileHunk[] = []
    while (this.i < this.end) {
      const raw = this.lines[this.i]!
      const trimmed = raw.trim()
      const line = this.i + 1
      if (trimmed === "") {
        this.i++
        continue
      }
      let result: FileHunk | string
      if (trimmed.startsWith(ADD)) result = this.add(pathOf(trimmed, ADD), line)
      else if (trimmed.startsWith(DELETE)) result = this.delete(pathOf(trimmed, DELETE), line)
      else if (trimmed.startsWith(UPDATE)) result = this.update(pathOf(trimmed, UPDATE), line)
      else if (trimmed === END) result = `line ${line}: "${END}" must be the last line of the patch`
      else if (trimmed.startsWith("***"))
        result = `line ${line}: unknown header ${quote(raw)}; expected ${EXPECTED_HEADER}`
      else result = `line ${line}: expected a file header (${EXPECTED_HEADER}), found ${quote(raw)}`
      if (typeof result === "string") return fail(result)
      hunks.push(result)
    }
    return { ok: true, hunks }
  }

  private add(path: string, line: number): FileHunk | string {
    if (path === "") return `line ${line}: "${ADD}" needs a path`
    this.i++
    const content: string[] = []
    let blanks = 0
    while (this.i < this.end && !isSectionStart(this.lines[this.i]!)) {
      const raw = this.lines[this.i]!
      if (raw.startsWith("+")) {
        // Blank lines between "+" lines are empty lines of the file whose "+" was dropped.
        for (; blanks > 0; blanks--) content.push("")
        content.push(raw.slice(1))
      } else if (raw.trim() === "") {
        blanks++
      } else {
        return `line ${this.i + 1}: expected a line starting with "+" (content of the added file ${path}) or a file header, found ${quote(raw)}`
      }
      this.i++
    }
    return { type: "add", path, content: content.length === 0 ? "" : `${content.join("\n")}\n`, line }
  }

  private delete(path: string, line: number): FileHunk | string {
    if (path === "") return `line ${line}: "${DELETE}" needs a path`
    this.i++
    while (this.i < this.end && !isSectionStart(this.lines[this.i]!)) {
      const raw = this.lines[this.i]!
      if (raw.trim() !== "") {
        return `line ${this.i + 1}: "${DELETE} ${path}" takes no lines; expected a file header, found ${quote(raw)}`
      }
      this.i++
    }
    return { type: "delete", path, line }
  }

  private update(path: string, line: number): FileHunk | string {
    if (path === "") return `line ${line}: "${UPDATE}" needs a path`
    this.i = nextNonBlank(this.lines, this.i + 1)
    let movePath: string | undefined
    const moveLine = this.lines[this.i]?.trim() ?? ""
    if (this.i < this.end && moveLine.startsWith(MOVE)) {
      movePath = pathOf(moveLine, MOVE)
      if (movePath === "") return `line ${this.i + 1}: "${MOVE}" needs a path`
      this.i++
    }

    const chunks: Chunk[] = []
    let current: Chunk | undefined
    let blanks = 0
    const close = (): string | undefined => {
      if (!current) return undefined
      if (current.lines.length === 0) {
        const header = current.contexts.length > 0 ? `"@@ ${current.contexts.at(-1)}"` : '"@@"'
        return `line ${current.line}: the chunk ${header} in ${path} has no lines; expected lines starting with " ", "-" or "+" after it`
      }
      stripGutters(current)
      chunks.push(current)
      current = undefined
      blanks = 0
      return undefined
    }

    for (; this.i < this.end; this.i++) {
      const raw = this.lines[this.i]!
      const trimmed = raw.trim()
      const at = this.i + 1
      if (isSectionStart(raw)) break
      if (trimmed === END_OF_FILE) {
        if (!current || current.lines.length === 0) {
          return `line ${at}: "${END_OF_FILE}" must follow the lines of a chunk in ${path}`
        }
        current.endOfFile = true
        const error = close()
        if (error) return error
        continue
      }
      if (trimmed.startsWith(MOVE)) return `line ${at}: "${MOVE}" must directly follow "${UPDATE} ${path}"`
      if (raw.startsWith("***")) {
        return `line ${at}: unknown header ${quote(raw)} in ${path}; expected a chunk line, "@@", "${END_OF_FILE}" or ${EXPECTED_HEADER}`
      }
      if (raw.startsWith("@@")) {
        if (current && current.lines.length > 0) {
          const error = close()
          if (error) return error
        }
        current ??= { contexts: [], lines: [], endOfFile: false, line: at }
        const context = headerContext(raw)
        if (context !== undefined) current.contexts.push(context)
        continue
      }
      const op = raw[0]
      if (op === " " || op === "-" || op === "+") {
        if (!current) {
          if (chunks.length > 0)
            return `line ${at}: expected "@@" to start a new chunk in ${path}, found ${quote(raw)}`
          current = { contexts: [], lines: [], endOfFile: false, line: at }
        }
        for (; blanks > 0; blanks--) current.lines.push({ op: " ", text: "" })
        current.lines.push({ op, text: raw.slice(1) })
        continue
      }
      if (trimmed === "") {
        // An empty context line whose leading space was dropped; at the end of a chunk, a separator.
        if (current) blanks++
        continue
      }
      return `line ${at}: expected a line starting with " " (context), "-" (remove), "+" (add) or "@@" in ${path}, found ${quote(raw)}`
    }
    if (current) {
      const error = close()
      if (error) return error
    }
    if (chunks.length === 0 && movePath === undefined) {
      return `line ${line}: "${UPDATE} ${path}" has no changes; expected "@@" chunks or "${MOVE} <path>"`
    }
    return movePath === undefined
      ? { type: "update", path, chunks, line }
      : { type: "update", path, movePath, chunks, line }
  }
}

/** A line that ends the current section: a file header or the end marker. */
function isSectionStart(raw: string): boolean {
  const trimmed = raw.trim()
  if (!trimmed.startsWith("***")) return false
  return (
    trimmed.startsWith(ADD) || trimmed.startsWith(DELETE) || trimmed.startsWith(UPDATE) || trimmed === END
  )
}

/** The context text of an `@@` line: `@@ def f():` → `def f():`; `@@` and `@@ -1,2 +1,3 @@` → none. */
function headerContext(raw: string): string | undefined {
  const line = raw.trimEnd()
  const range = RANGE_HEADER.exec(line)
  const text = range ? range[1]! : line.slice(2).replace(/^ /, "")
  return text.trim() === "" ? undefined : text
}

/**
 * Removes read-tool gutters (`12: `) copied into a chunk. Only when every context and removed line
 * has one and the numbers are consecutive (they are file lines in order); added lines lose theirs
 * when every added line has one.
 */
function stripGutters(chunk: Chunk): void {
  const old = chunk.lines.filter((line) => line.op !== "+")
  if (old.length === 0) return
  let expected: number | undefined
  for (const line of old) {
    const match = GUTTER.exec(line.text)
    if (!match) return
    const number = Number(match[1])
    if (expected !== undefined && number !== expected) return
    expected = number + 1
  }
  const added = chunk.lines.filter((line) => line.op === "+")
  const stripAdded = added.length > 0 && added.every((line) => GUTTER.test(line.text))
  for (const line of chunk.lines) {
    if (line.op !== "+" || stripAdded) line.text = line.text.replace(GUTTER, "")
  }
}

function pathOf(trimmed: string, header: string): string {
  return trimmed.slice(header.length).trim()
}

function nextNonBlank(lines: readonly string[], from: number): number {
  let i = from
  while (i < lines.length && lines[i]!.trim() === "") i++
  return i
}

function previousNonBlank(lines: readonly string[], from: number): number {
  let i = from
  while (i >= 0 && lines[i]!.trim() === "") i--
  return i
}

function quote(line: string): string {
  const shown = line.length > 120 ? `${line.slice(0, 117)}...` : line
  return JSON.stringify(shown)
}

function fail(message: string): { ok: false; message: string } {
  return { ok: false, message }
}
