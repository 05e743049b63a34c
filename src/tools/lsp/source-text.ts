// The files a result points into, as the tool shows them: paths relative to the project, positions
// 1-based in characters (the protocol counts 0-based UTF-16 units), and the source line at each.

import { readFile } from "node:fs/promises"
import { isAbsolute, relative } from "node:path"
import { fileURLToPath } from "node:url"
import type { Position } from "vscode-languageserver-types"
import { toSlash } from "../kit/paths.ts"

/** Files larger than this show locations without their source line. */
const MAX_SOURCE_BYTES = 4 * 1024 * 1024
/** A source line longer than this is cut. */
const MAX_LINE_CHARS = 200

/** The source files one call looks into, each read once. */
export class SourceText {
  readonly #directory: string
  readonly #files = new Map<string, Promise<string[] | undefined>>()

  constructor(directory: string) {
    this.#directory = directory
  }

  /** A file's path as shown: relative to the project inside it, absolute outside; a non-file URI as it is. */
  show(uri: string): string {
    const file = pathOf(uri)
    if (!file) return uri
    const rel = relative(this.#directory, file)
    return rel && !rel.startsWith("..") && !isAbsolute(rel) ? toSlash(rel) : file
  }

  /** The lines of the file at `uri`; undefined when it cannot be read (or is too large to show from). */
  lines(uri: string): Promise<string[] | undefined> {
    const file = pathOf(uri)
    if (!file) return Promise.resolve(undefined)
    let lines = this.#files.get(file)
    if (!lines) {
      lines = readLines(file)
      this.#files.set(file, lines)
    }
    return lines
  }

  /** `path:line:col` for a position, 1-based, the column in characters. */
  async place(uri: string, position: Position): Promise<string> {
    const text = (await this.lines(uri))?.[position.line]
    return `${this.show(uri)}:${position.line + 1}:${characterColumn(text, position.character)}`
  }

  /** `path:line:col: source line` (without the source when the file cannot be read). */
  async located(uri: string, position: Position): Promise<string> {
    const place = await this.place(uri, position)
    const text = (await this.lines(uri))?.[position.line]?.trim()
    return text ? `${place}: ${clip(text)}` : place
  }
}

/** The 1-based column of a UTF-16 offset in `text` (characters, so an emoji counts once). */
export function characterColumn(text: string | undefined, utf16: number): number {
  if (text === undefined) return utf16 + 1
  return [...text.slice(0, utf16)].length + 1
}

/** The UTF-16 offset of a 1-based character column in `text`; columns past the end point at the end. */
export function utf16Offset(text: string, column: number): number {
  return [...text].slice(0, Math.max(0, column - 1)).join("").length
}

function clip(text: string): string {
  return text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}…` : text
}

function pathOf(uri: string): string | undefined {
  if (!uri.startsWith("file:")) return undefined
  try {
    return fileURLToPath(uri)
  } catch {
    return undefined
  }
}

async function readLines(file: string): Promise<string[] | undefined> {
  try {
    const bytes = await readFile(file)
    if (bytes.length > MAX_SOURCE_BYTES) return undefined
    return bytes.toString("utf8").split(/\r?\n/)
  } catch {
    return undefined
  }
}
