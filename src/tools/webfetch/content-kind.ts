import { isProbablyBinary, SNIFF_BYTES, sniffMedia } from "../../platform/fs/text.ts"

/** What a response is, as far as webfetch is concerned. */
export type ContentKind = "html" | "text" | "image" | "pdf" | "binary"

// Types that are text whatever their top-level type says.
const TEXT_APPLICATION = new Set([
  "json",
  "xml",
  "javascript",
  "ecmascript",
  "x-javascript",
  "x-sh",
  "x-shellscript",
  "yaml",
  "x-yaml",
  "toml",
  "x-toml",
  "sql",
  "graphql",
  "x-tex",
  "x-latex",
  "markdown",
  "x-www-form-urlencoded",
  "x-ndjson",
  "csv",
])

// Said of bodies whose type the server did not know: the bytes decide.
const UNKNOWN = new Set(["", "application/octet-stream", "binary/octet-stream", "application/unknown"])

/** The media type of a Content-Type value, lower case, without parameters. */
export function mediaType(contentType: string): string {
  return contentType.split(";")[0]!.trim().toLowerCase()
}

/**
 * What a body is: by its declared media type, or, when the server does not say (or says
 * octet-stream), by its first bytes. SVG is text (it is XML), not an image to attach.
 */
export function contentKind(contentType: string, bytes: Uint8Array): { kind: ContentKind; mime: string } {
  const mime = mediaType(contentType)
  if (UNKNOWN.has(mime)) return sniffed(bytes)
  if (mime === "text/html" || mime === "application/xhtml+xml") return { kind: "html", mime }
  if (mime === "application/pdf" || mime === "application/x-pdf") return { kind: "pdf", mime }
  if (mime.startsWith("image/")) {
    return mime === "image/svg+xml" ? { kind: "text", mime } : { kind: "image", mime }
  }
  if (mime.startsWith("text/")) return { kind: "text", mime }
  const [top, sub = ""] = mime.split("/")
  if (sub.endsWith("+json") || sub.endsWith("+xml") || (top === "application" && TEXT_APPLICATION.has(sub)))
    return { kind: "text", mime }
  return { kind: "binary", mime }
}

function sniffed(bytes: Uint8Array): { kind: ContentKind; mime: string } {
  const head = bytes.subarray(0, SNIFF_BYTES)
  const media = sniffMedia(head)
  if (media) return { kind: media.kind === "pdf" ? "pdf" : "image", mime: media.mime }
  const start = new TextDecoder("latin1").decode(head.subarray(0, 512)).trimStart().toLowerCase()
  if (start.startsWith("<!doctype html") || start.startsWith("<html"))
    return { kind: "html", mime: "text/html" }
  if (isProbablyBinary(head)) return { kind: "binary", mime: "application/octet-stream" }
  return { kind: "text", mime: "text/plain" }
}
