// The bytes an edit writes: the new text in the file's own encoding, and a last check that no byte
// outside the changed region differs from what was on disk.

import { BOM, stripBom } from "../../../platform/fs/text.ts"
import {
  encodedLength,
  encodeText,
  encodingLabel,
  type FileEncoding,
} from "../../../platform/fs/text-encoding.ts"
import { ToolFailure } from "../../../runtime/tool/failure.ts"
import type { Existing } from "./target.ts"

export interface EncodeEditInput {
  /** What the edit started from: an existing text file, or nothing. */
  readonly existing: Extract<Existing, { kind: "file" } | { kind: "missing" }>
  /** The new text. A leading U+FEFF stands for a byte order mark. */
  readonly text: string
  /** The path as the model knows it, for messages. */
  readonly shown: string
}

/**
 * The bytes to write for an edited (or created) file.
 *
 * 1. Encoding and byte order mark: the existing file's (a BOM also when the new text starts with
 *    U+FEFF); a new file is UTF-8.
 * 2. Encode; a character the encoding cannot hold fails the edit, naming it and the encoding.
 * 3. Guard, for an existing file: the text the edit left alone (the common start and end of the old and
 *    new text), encoded, must be byte for byte what the file holds there, and what will be written
 *    there. Otherwise the edit fails and nothing is written.
 * Throws `ToolFailure`; the file is then untouched.
 */
export function encodeEdit(input: EncodeEditInput): Buffer {
  const { existing, shown } = input
  const encoding = existing.kind === "file" ? existing.encoding : "utf-8"
  const bom = (existing.kind === "file" && existing.bom) || input.text.startsWith(BOM)
  const text = bom ? stripBom(input.text) : input.text
  const encoded = encodeText(text, encoding, bom)
  if (!encoded.ok)
    throw new ToolFailure(
      `Cannot write ${shown}: ${encoded.reason}, the file's encoding. Nothing was written. ` +
        "Use characters the encoding has (or an escape the file's language understands), or convert the file first.",
    )
  if (existing.kind === "file") {
    const before = withoutBom(existing.data, existing.bom, encoding)
    const after = withoutBom(encoded.bytes, bom, encoding)
    if (!keepsUntouched(existing.text, text, before, after, encoding))
      throw new ToolFailure(
        `Cannot write ${shown}: bytes outside the edited region would differ from what is on disk ` +
          `(the file is read as ${encodingLabel(encoding)}). Nothing was written. ` +
          "Convert the file to UTF-8 first (for example with iconv through bash), or replace it whole with write.",
      )
  }
  return encoded.bytes
}

/**
 * What to add to a failed match in a file that is not UTF-8: when `oldString` holds U+FFFD, it was most
 * likely copied from a display that decoded the file as UTF-8, where the file's own characters show as
 * U+FFFD; the edit sees the file in its real encoding.
 */
export function notFoundHint(encoding: FileEncoding, oldString: string): string {
  if (encoding === "utf-8" || !oldString.includes("\uFFFD")) return ""
  return (
    `\n\nThe file is ${encodingLabel(encoding)}, not UTF-8, and oldString contains U+FFFD (\uFFFD): ` +
    "write the characters as they really are (e.g. é, not \uFFFD); the file is edited in its own encoding."
  )
}

/**
 * Whether the bytes of the text an edit left alone (the common start and end of `oldText` and `newText`)
 * are the same in the file on disk (`before`) and in what will be written (`after`). What is written
 * there is that text encoded, so a decoding that did not stand for the bytes on disk shows here.
 */
function keepsUntouched(
  oldText: string,
  newText: string,
  before: Buffer,
  after: Buffer,
  encoding: FileEncoding,
): boolean {
  const prefix = commonPrefix(oldText, newText)
  const suffix = commonSuffix(oldText, newText, Math.min(oldText.length, newText.length) - prefix)
  const head = encodedLength(oldText.slice(0, prefix), encoding)
  const tail = encodedLength(oldText.slice(oldText.length - suffix), encoding)
  if (head + tail > before.length || head + tail > after.length) return false
  return (
    before.subarray(0, head).equals(after.subarray(0, head)) &&
    before.subarray(before.length - tail).equals(after.subarray(after.length - tail))
  )
}

/** Compared a block at a time first: slices of flat strings compare natively. */
const BLOCK = 4096

/** Length of the common start of `a` and `b`, never ending inside a surrogate pair. */
function commonPrefix(a: string, b: string): number {
  const limit = Math.min(a.length, b.length)
  let length = 0
  while (length + BLOCK <= limit && a.slice(length, length + BLOCK) === b.slice(length, length + BLOCK))
    length += BLOCK
  while (length < limit && a.charCodeAt(length) === b.charCodeAt(length)) length++
  if (length > 0 && isHighSurrogate(a.charCodeAt(length - 1))) length--
  return length
}

/** Length of the common end of `a` and `b`, at most `limit`, never starting inside a surrogate pair. */
function commonSuffix(a: string, b: string, limit: number): number {
  let length = 0
  while (
    length + BLOCK <= limit &&
    a.slice(a.length - length - BLOCK, a.length - length) ===
      b.slice(b.length - length - BLOCK, b.length - length)
  )
    length += BLOCK
  while (length < limit && a.charCodeAt(a.length - 1 - length) === b.charCodeAt(b.length - 1 - length))
    length++
  if (length > 0 && isLowSurrogate(a.charCodeAt(a.length - length))) length--
  return length
}

function withoutBom(bytes: Buffer, bom: boolean, encoding: string): Buffer {
  if (!bom) return bytes
  return bytes.subarray(encoding === "utf-8" ? 3 : 2)
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff
}
