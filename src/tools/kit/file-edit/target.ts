// What is at a writing tool's path now, and what to say when it is missing.

import type { Stats } from "node:fs"
import { type FileHandle, open, readdir, stat } from "node:fs/promises"
import { basename, dirname, extname, resolve } from "node:path"
import { errorCode } from "../../../platform/fs/errors.ts"
import { describeFileType } from "../../../platform/fs/file-type.ts"
import { NONBLOCKING_READ } from "../../../platform/fs/open-regular.ts"
import { isProbablyBinary, SNIFF_BYTES, sniffMedia } from "../../../platform/fs/text.ts"
import { decodeText, type FileEncoding } from "../../../platform/fs/text-encoding.ts"

/** What is at a path now. A text file carries its bytes (for a byte-exact restore) and its decoded text. */
export type Existing =
  | { readonly kind: "missing" }
  | { readonly kind: "directory" }
  /** Something no edit may touch (a FIFO, a device, a binary file, bytes with no single encoding). */
  | { readonly kind: "refused"; readonly reason: string }
  | {
      readonly kind: "file"
      /** The bytes on disk. */
      readonly data: Buffer
      /** The text, without its BOM, decoded in the file's own encoding. */
      readonly text: string
      /** Whether the file starts with a byte order mark. */
      readonly bom: boolean
      /** The encoding `text` was decoded from, and must be written back in. */
      readonly encoding: FileEncoding
    }

/** Non-blocking: a FIFO swapped in after the stat cannot hang the open (regular files read as usual). */
const OPEN_FLAGS = NONBLOCKING_READ

/**
 * Reads what is at `path` for an edit, never blocking on it and never decoding it lossily.
 *
 * 1. stat it: missing (or under a regular file) is `missing`; a directory is `directory`; anything that
 *    is not a regular file (FIFO, socket, device) is `refused` before it is opened.
 * 2. Open it non-blocking and fstat the descriptor: what was opened must still be a regular file.
 * 3. Read it (`signal` aborts the read). A binary file (media magic bytes, NUL bytes or mostly control
 *    bytes in its first 8 KB) is `refused`.
 * 4. Decode it in its own encoding (`decodeText`: UTF-8, UTF-16 with BOM, windows-1252), only when that
 *    encodes back to the very same bytes; otherwise `refused`, naming what was found.
 * Other errors (no permission, a symlink loop) are thrown.
 */
export async function readExisting(path: string, signal?: AbortSignal): Promise<Existing> {
  const stats = await statOrMissing(path)
  if (!stats) return { kind: "missing" }
  if (stats.isDirectory()) return { kind: "directory" }
  if (!stats.isFile()) return refusedSpecial(stats)
  signal?.throwIfAborted()
  let handle: FileHandle | undefined
  let data: Buffer
  try {
    handle = await open(path, OPEN_FLAGS)
    const opened = await handle.stat()
    if (opened.isDirectory()) return { kind: "directory" }
    if (!opened.isFile()) return refusedSpecial(opened)
    data = await handle.readFile(signal ? { signal } : {})
  } catch (error) {
    const code = errorCode(error)
    if (code === "ENOENT" || code === "ENOTDIR") return { kind: "missing" }
    if (code === "EISDIR") return { kind: "directory" }
    throw error
  } finally {
    await handle?.close().catch(() => {})
  }
  const head = data.subarray(0, SNIFF_BYTES)
  const media = sniffMedia(head)
  if (media || isProbablyBinary(head)) {
    const what = media ? `a binary file (${media.mime})` : "a binary file (it holds NUL or control bytes)"
    return {
      kind: "refused",
      reason:
        `it is ${what}, and editing it as text would corrupt it. Only text files can be edited; ` +
        "change a binary file with a program made for its format (through bash), or replace it whole.",
    }
  }
  const decoded = decodeText(data)
  if (!decoded.ok) {
    return {
      kind: "refused",
      reason:
        `${decoded.reason}. Editing it would change bytes you did not touch, so it is not edited. ` +
        "Convert it to one encoding first (for example with iconv through bash), or replace it whole with write.",
    }
  }
  return { kind: "file", data, text: decoded.text, bom: decoded.bom, encoding: decoded.encoding }
}

async function statOrMissing(path: string): Promise<Stats | undefined> {
  try {
    return await stat(path)
  } catch (error) {
    const code = errorCode(error)
    if (code === "ENOENT" || code === "ENOTDIR") return undefined
    throw error
  }
}

function refusedSpecial(stats: Stats): Existing {
  return {
    kind: "refused",
    reason: `it is ${describeFileType(stats)}, not a regular file, so it is not opened. Only regular files can be edited; give the path of one.`,
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
