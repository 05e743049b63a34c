import { createSha256 } from "../util/sha256.ts"

/** U+FEFF, the byte order mark as it appears at the start of a decoded string. */
export const BOM = "\uFEFF"

export type BomEncoding = "utf-8" | "utf-16le" | "utf-16be"

export interface Bom {
  readonly encoding: BomEncoding
  /** Bytes the mark takes at the start of the file. */
  readonly length: number
}

export type LineEnding = "\n" | "\r\n"

/** The byte order mark at the start of `buffer`, if there is one (UTF-8, UTF-16 LE or BE). */
export function detectBom(buffer: Uint8Array): Bom | undefined {
  const [a, b, c] = buffer
  if (a === 0xef && b === 0xbb && c === 0xbf) return { encoding: "utf-8", length: 3 }
  if (a === 0xff && b === 0xfe) return { encoding: "utf-16le", length: 2 }
  if (a === 0xfe && b === 0xff) return { encoding: "utf-16be", length: 2 }
  return undefined
}

/** Splits a leading U+FEFF off decoded text, so a writer can put it back (`withBom`). */
export function splitBom(text: string): { bom: boolean; text: string } {
  return text.startsWith(BOM) ? { bom: true, text: text.slice(1) } : { bom: false, text }
}

/** `text` without a leading U+FEFF. */
export function stripBom(text: string): string {
  return splitBom(text).text
}

/** `text` with exactly one leading U+FEFF when `bom` is true, and none when it is false. */
export function withBom(text: string, bom: boolean): string {
  const bare = stripBom(text)
  return bom ? BOM + bare : bare
}

/**
 * The file's dominant line ending: `\r\n` when more lines end with CRLF than with a bare LF, `\n` when
 * fewer; a tie goes to the first ending in the text. Text without any line break is LF. A lone `\r` is
 * content, not a line ending.
 */
export function detectLineEnding(text: string): LineEnding {
  let crlf = 0
  let lf = 0
  let first: LineEnding | undefined
  for (let index = text.indexOf("\n"); index !== -1; index = text.indexOf("\n", index + 1)) {
    const ending: LineEnding = index > 0 && text.charCodeAt(index - 1) === 13 ? "\r\n" : "\n"
    if (ending === "\r\n") crlf++
    else lf++
    first ??= ending
  }
  if (crlf === lf) return first ?? "\n"
  return crlf > lf ? "\r\n" : "\n"
}

/** Every CRLF turned into LF; lone `\r` characters are kept. */
export function normalizeToLf(text: string): string {
  return text.includes("\r\n") ? text.replaceAll("\r\n", "\n") : text
}

/** Every line break in `text` (LF or CRLF, mixed or not) written as `eol`. */
export function applyLineEnding(text: string, eol: LineEnding): string {
  const lf = normalizeToLf(text)
  return eol === "\n" ? lf : lf.replaceAll("\n", "\r\n")
}

/**
 * SHA-256 of the content, lowercase hex. A string is hashed as its UTF-8 bytes, so the hash of a string
 * equals the hash of a file holding exactly that string (BOM included, if the string has one).
 */
export function hashContent(content: string | Uint8Array): string {
  return createSha256().update(content).digest("hex")
}

/** How much of a file is sniffed for binary content. */
export const SNIFF_BYTES = 8192

/**
 * Extensions that are binary whatever their first bytes look like: opencode's list, plus archives,
 * fonts, audio, video and databases. Images are not here: the media sniffer handles the ones a model
 * can see, and the others are judged by their bytes.
 */
const BINARY_EXTENSIONS = new Set([
  // opencode's list
  "zip",
  "tar",
  "gz",
  "exe",
  "dll",
  "so",
  "class",
  "jar",
  "war",
  "7z",
  "doc",
  "docx",
  "xls",
  "xlsx",
  "ppt",
  "pptx",
  "odt",
  "ods",
  "odp",
  "bin",
  "dat",
  "obj",
  "o",
  "a",
  "lib",
  "wasm",
  "pyc",
  "pyo",
  // archives and compressed streams
  "tgz",
  "bz2",
  "xz",
  "zst",
  "lz4",
  "rar",
  "iso",
  "dmg",
  "deb",
  "rpm",
  "apk",
  // native code and bytecode
  "dylib",
  "node",
  "pdb",
  "beam",
  // fonts
  "woff",
  "woff2",
  "ttf",
  "otf",
  "eot",
  // audio and video
  "mp3",
  "mp4",
  "m4a",
  "mov",
  "avi",
  "mkv",
  "webm",
  "flac",
  "wav",
  "ogg",
  // databases
  "sqlite",
  "sqlite3",
  "db",
])

/** Share of control bytes (other than tab, LF, VT, FF, CR) above which a sample is binary. */
const CONTROL_SHARE = 0.3

/**
 * Whether the file whose first bytes are `buffer` is binary, so reading it as text would be useless.
 *
 * 1. A UTF-8 or UTF-16 byte order mark: text (UTF-16 is full of NUL bytes, yet it is text).
 * 2. A known binary extension (`extension` with or without its dot, or a file name): binary.
 * 3. Empty: text.
 * 4. In the first 8 KB: any NUL byte, or more than 30 % bytes below 9 or between 14 and 31: binary.
 */
export function isProbablyBinary(buffer: Uint8Array, extension?: string): boolean {
  if (detectBom(buffer)) return false
  if (extension !== undefined && BINARY_EXTENSIONS.has(normalizeExtension(extension))) return true
  const length = Math.min(buffer.length, SNIFF_BYTES)
  if (length === 0) return false
  let control = 0
  for (let index = 0; index < length; index++) {
    const byte = buffer[index]!
    if (byte === 0) return true
    if (byte < 9 || (byte > 13 && byte < 32)) control++
  }
  return control / length > CONTROL_SHARE
}

function normalizeExtension(extension: string): string {
  const dot = extension.lastIndexOf(".")
  return (dot === -1 ? extension : extension.slice(dot + 1)).toLowerCase()
}

export interface Media {
  readonly mime: "image/png" | "image/jpeg" | "image/gif" | "image/webp" | "application/pdf"
  readonly kind: "image" | "pdf"
}

/**
 * The media type a model can be shown, from the file's magic bytes: PNG, JPEG, GIF, WebP or PDF.
 * Everything else (SVG, BMP, TIFF, AVIF, ...) is undefined and goes through the text and binary checks,
 * as in opencode.
 */
export function sniffMedia(buffer: Uint8Array): Media | undefined {
  if (startsWith(buffer, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
    return { mime: "image/png", kind: "image" }
  if (startsWith(buffer, [0xff, 0xd8, 0xff])) return { mime: "image/jpeg", kind: "image" }
  if (startsWith(buffer, ascii("GIF87a")) || startsWith(buffer, ascii("GIF89a")))
    return { mime: "image/gif", kind: "image" }
  if (startsWith(buffer, ascii("RIFF")) && startsWith(buffer.subarray(8), ascii("WEBP")))
    return { mime: "image/webp", kind: "image" }
  if (startsWith(buffer, ascii("%PDF-"))) return { mime: "application/pdf", kind: "pdf" }
  return undefined
}

function startsWith(buffer: Uint8Array, prefix: readonly number[]): boolean {
  if (buffer.length < prefix.length) return false
  return prefix.every((byte, index) => buffer[index] === byte)
}

function ascii(text: string): number[] {
  return Array.from(text, (char) => char.charCodeAt(0))
}
