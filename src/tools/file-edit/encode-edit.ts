// The bytes an edit writes: the new text in the file's own encoding, and a last check that no byte
// outside the changed region differs from what was on disk.

import { BOM, stripBom } from "../../fs/text.ts"
import { encodeText, encodingLabel, type FileEncoding } from "../../fs/text-encoding.ts"
import { ToolFailure } from "../../tool/failure.ts"
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
    const untouched = untouchedBytes(existing.text, text, (part) => encodeText(part, encoding, false))
    const before = withoutBom(existing.data, existing.bom, encoding)
    const after = withoutBom(encoded.bytes, bom, encoding)
    if (!untouched || !keeps(before, untouched) || !keeps(after, untouched))
      throw new ToolFailure(
        `Cannot write ${shown}: bytes outside the edited region would differ from what is on disk ` +
          `(the file is read as ${encodingLabel(encoding)}). Nothing was written.`,
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

interface Untouched {
  readonly head: Buffer
  readonly tail: Buffer
}

/** The encoded common start and end of `before` and `after` (never splitting a surrogate pair). */
function untouchedBytes(
  before: string,
  after: string,
  encode: (text: string) => ReturnType<typeof encodeText>,
): Untouched | undefined {
  const limit = Math.min(before.length, after.length)
  let prefix = 0
  while (prefix < limit && before.charCodeAt(prefix) === after.charCodeAt(prefix)) prefix++
  if (prefix > 0 && isHighSurrogate(before.charCodeAt(prefix - 1))) prefix--
  let suffix = 0
  while (
    suffix < limit - prefix &&
    before.charCodeAt(before.length - 1 - suffix) === after.charCodeAt(after.length - 1 - suffix)
  )
    suffix++
  if (suffix > 0 && isLowSurrogate(before.charCodeAt(before.length - suffix))) suffix--
  const head = encode(before.slice(0, prefix))
  const tail = encode(before.slice(before.length - suffix))
  return head.ok && tail.ok ? { head: head.bytes, tail: tail.bytes } : undefined
}

function keeps(bytes: Buffer, untouched: Untouched): boolean {
  const { head, tail } = untouched
  return (
    head.length + tail.length <= bytes.length &&
    bytes.subarray(0, head.length).equals(head) &&
    bytes.subarray(bytes.length - tail.length).equals(tail)
  )
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
