// A text file's encoding, found from its bytes, and the exact inverse: decoding then encoding gives back
// the same bytes, so a tool that changes one line never changes any other byte of the file.

import { detectBom } from "./text.ts"

/** The encodings a text file can be edited in: each decodes and encodes losslessly. */
export type FileEncoding = "utf-8" | "utf-16le" | "utf-16be" | "windows-1252"

export type Decoded =
  | {
      readonly ok: true
      readonly encoding: FileEncoding
      /** Whether the bytes start with a byte order mark (always, for UTF-16). */
      readonly bom: boolean
      /** The text, without the byte order mark. */
      readonly text: string
    }
  | { readonly ok: false; readonly reason: string }

export type Encoded =
  | { readonly ok: true; readonly bytes: Buffer }
  | { readonly ok: false; readonly reason: string }

/** How messages name an encoding. */
export function encodingLabel(encoding: FileEncoding): string {
  switch (encoding) {
    case "utf-8":
      return "UTF-8"
    case "utf-16le":
      return "UTF-16 LE"
    case "utf-16be":
      return "UTF-16 BE"
    case "windows-1252":
      return "windows-1252 (latin-1)"
  }
}

/**
 * The text of a file's bytes, in the file's own encoding, only when encoding it back gives exactly the
 * same bytes.
 *
 * 1. A byte order mark decides: UTF-8, UTF-16 LE or UTF-16 BE (the mark is split off).
 * 2. Without one, valid UTF-8 is UTF-8.
 * 3. Bytes that are not UTF-8, with no valid multi-byte UTF-8 sequence among them, are a single-byte
 *    file: windows-1252 (a superset of the printable latin-1 range; its five unassigned bytes map to the
 *    C1 controls, so every byte has a character).
 * 4. Anything else (UTF-8 mixed with other bytes, a UTF-8 BOM before invalid bytes, an odd-length
 *    UTF-16 body) is refused, saying what was found; so is any decoding that does not round-trip.
 */
export function decodeText(bytes: Uint8Array): Decoded {
  const bom = detectBom(bytes)
  const body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).subarray(bom?.length ?? 0)
  let decoded: Decoded
  if (bom?.encoding === "utf-16le" || bom?.encoding === "utf-16be") {
    if (body.length % 2 !== 0)
      return refuse(
        `it starts with a ${encodingLabel(bom.encoding)} byte order mark but has an odd number of bytes`,
      )
    decoded = { ok: true, encoding: bom.encoding, bom: true, text: decodeUtf16(body, bom.encoding) }
  } else {
    const utf8 = strictUtf8(body)
    if (utf8 !== undefined) decoded = { ok: true, encoding: "utf-8", bom: bom !== undefined, text: utf8 }
    else {
      const offset = firstInvalidUtf8(body)
      if (bom)
        return refuse(`it starts with a UTF-8 byte order mark but is not valid UTF-8 (byte ${offset + 3})`)
      if (hasMultiByteUtf8(body))
        return refuse(
          `it mixes UTF-8 with bytes that are not UTF-8 (the first at byte ${offset}), so it has no single encoding`,
        )
      decoded = { ok: true, encoding: "windows-1252", bom: false, text: decodeWindows1252(body) }
    }
  }
  const again = encodeText(decoded.text, decoded.encoding, decoded.bom)
  if (!again.ok || !again.bytes.equals(bytes))
    return refuse(`its ${encodingLabel(decoded.encoding)} text does not encode back to the same bytes`)
  return decoded
}

/**
 * `text` (without byte order mark) as bytes in `encoding`, with the mark when `bom` is true. A character
 * the encoding cannot represent is refused, naming it and the encoding.
 */
export function encodeText(text: string, encoding: FileEncoding, bom: boolean): Encoded {
  switch (encoding) {
    case "utf-8":
      return { ok: true, bytes: Buffer.from(bom ? `\uFEFF${text}` : text, "utf8") }
    case "utf-16le":
      return { ok: true, bytes: Buffer.from(bom ? `\uFEFF${text}` : text, "utf16le") }
    case "utf-16be":
      return { ok: true, bytes: Buffer.from(bom ? `\uFEFF${text}` : text, "utf16le").swap16() }
    case "windows-1252":
      return encodeWindows1252(bom ? `\uFEFF${text}` : text)
  }
}

/** How many bytes `text` takes in `encoding` (without byte order mark); every character must be representable. */
export function encodedLength(text: string, encoding: FileEncoding): number {
  if (encoding === "utf-8") return Buffer.byteLength(text, "utf8")
  return encoding === "windows-1252" ? text.length : text.length * 2
}

function refuse(reason: string): Decoded {
  return { ok: false, reason }
}

const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

function strictUtf8(bytes: Buffer): string | undefined {
  try {
    return UTF8.decode(bytes)
  } catch {
    return undefined
  }
}

/** Offset of the first byte that does not start a valid UTF-8 sequence (the length when there is none). */
function firstInvalidUtf8(bytes: Buffer): number {
  let index = 0
  while (index < bytes.length) {
    const length = utf8SequenceLength(bytes, index)
    if (length === 0) return index
    index += length
  }
  return index
}

/** Whether a valid UTF-8 sequence of two or more bytes occurs anywhere. */
function hasMultiByteUtf8(bytes: Buffer): boolean {
  for (let index = 0; index < bytes.length; index++) {
    if (bytes[index]! < 0xc2) continue
    if (utf8SequenceLength(bytes, index) > 1) return true
  }
  return false
}

/** Length of the valid UTF-8 sequence starting at `index`, or 0 when none starts there (RFC 3629). */
function utf8SequenceLength(bytes: Buffer, index: number): number {
  const lead = bytes[index]!
  if (lead < 0x80) return 1
  const length =
    lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0
  if (length === 0 || index + length > bytes.length) return 0
  // The second byte's range depends on the lead: no overlong forms, no surrogates, nothing past U+10FFFF.
  const second = bytes[index + 1]!
  const low = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80
  const high = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf
  if (second < low || second > high) return 0
  for (let next = index + 2; next < index + length; next++) {
    if ((bytes[next]! & 0xc0) !== 0x80) return 0
  }
  return length
}

function decodeUtf16(body: Buffer, encoding: "utf-16le" | "utf-16be"): string {
  if (encoding === "utf-16le") return body.toString("utf16le")
  return Buffer.from(body).swap16().toString("utf16le")
}

/** windows-1252's bytes 0x80–0x9F (WHATWG): the five unassigned ones map to the C1 control of the same value. */
const HIGH_CONTROLS = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d,
  0x17d, 0x8f, 0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a,
  0x153, 0x9d, 0x17e, 0x178,
]
const HIGH_BYTES = new Map(HIGH_CONTROLS.map((code, index) => [code, 0x80 + index]))

function decodeWindows1252(bytes: Buffer): string {
  let text = ""
  for (let start = 0; start < bytes.length; start += 8192) {
    const codes = Array.from(bytes.subarray(start, start + 8192), (byte) =>
      byte >= 0x80 && byte < 0xa0 ? HIGH_CONTROLS[byte - 0x80]! : byte,
    )
    text += String.fromCharCode(...codes)
  }
  return text
}

function encodeWindows1252(text: string): Encoded {
  const bytes = Buffer.allocUnsafe(text.length)
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index)
    const byte = code < 0x80 || (code >= 0xa0 && code <= 0xff) ? code : HIGH_BYTES.get(code)
    if (byte === undefined) {
      const char = String.fromCodePoint(text.codePointAt(index)!)
      const hex = text.codePointAt(index)!.toString(16).toUpperCase().padStart(4, "0")
      return {
        ok: false,
        reason: `the character ${JSON.stringify(char)} (U+${hex}) cannot be written in ${encodingLabel("windows-1252")}`,
      }
    }
    bytes[index] = byte
  }
  return { ok: true, bytes }
}
