// What is at a writing tool's path now, and what to say when it is missing.

import { readdir, readFile, stat } from "node:fs/promises"
import { basename, dirname, extname, resolve } from "node:path"
import { errorCode } from "../../fs/errors.ts"
import { splitBom } from "../../fs/text.ts"

/** What is at a path now. A text file carries its bytes (for a byte-exact restore) and its decoded text. */
export type Existing =
  | { readonly kind: "missing" }
  | { readonly kind: "directory" }
  | {
      readonly kind: "file"
      /** The bytes on disk. */
      readonly data: Buffer
      /** The text, without its BOM. */
      readonly text: string
      /** Whether the text started with U+FEFF. */
      readonly bom: boolean
    }

/**
 * Reads what is at `path`: a missing path (or one under a regular file) is `missing`; a directory is
 * `directory`; anything else is read as UTF-8 with a leading BOM split off. Other errors (no permission)
 * are thrown.
 */
export async function readExisting(path: string): Promise<Existing> {
  try {
    const data = await readFile(path)
    const { bom, text } = splitBom(data.toString("utf8"))
    return { kind: "file", data, text, bom }
  } catch (error) {
    const code = errorCode(error)
    if (code === "ENOENT" || code === "ENOTDIR") return { kind: "missing" }
    if (code === "EISDIR") return { kind: "directory" }
    throw error
  }
}

const SUGGESTIONS = 3

/**
 * `File <path> not found`, plus up to three files of the same directory whose names look like what was
 * meant (the same name in another case, the same stem with another extension, a name that contains
 * the stem or is contained in it). The directory is listed once; a missing directory adds nothing.
 */
export async function notFoundMessage(path: string): Promise<string> {
  const message = `File ${path} not found`
  let names: string[]
  try {
    names = await readdir(dirname(path))
  } catch {
    return message
  }
  const wanted = basename(path).toLowerCase()
  const stem = basename(wanted, extname(wanted))
  const score = (name: string): number | undefined => {
    const lower = name.toLowerCase()
    if (lower === wanted) return 0
    const other = basename(lower, extname(lower))
    if (other === stem) return 1
    if (stem.length >= 3 && (other.includes(stem) || (other.length >= 3 && stem.includes(other)))) return 2
    return undefined
  }
  const matches = names
    .map((name) => ({ name, rank: score(name) }))
    .filter((entry): entry is { name: string; rank: number } => entry.rank !== undefined)
    .sort((a, b) => a.rank - b.rank || a.name.localeCompare(b.name))
    .slice(0, SUGGESTIONS)
  if (matches.length === 0) return message
  const dir = dirname(path)
  const list = matches.map((entry) => resolve(dir, entry.name))
  const candidates: string[] = []
  for (const candidate of list) {
    const stats = await stat(candidate).catch(() => undefined)
    if (stats?.isFile()) candidates.push(candidate)
  }
  if (candidates.length === 0) return message
  return `${message}\n\nDid you mean one of these?\n${candidates.join("\n")}`
}
