/** A file attached to a tool result (images, PDFs): a MIME type and a `data:` or file URL. */
export interface FilePart {
  readonly type: "file"
  readonly mime: string
  readonly url: string
  readonly filename?: string
  /** The spec's attachment fields: its own id, and the session and message of the call it came with (set at settlement). */
  readonly id?: string
  readonly sessionID?: string
  readonly messageID?: string
}

/** What the model sees of a result: text and native media, in order. */
export type ModelContent =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "media"; readonly mime: string; readonly data: string }

export function text(value: string): ModelContent {
  return { type: "text", text: value }
}

/** Splits a base64 `data:` URL into its MIME type and payload; undefined for any other URL. */
export function parseDataUrl(url: string): { mime: string; data: string } | undefined {
  const match = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s.exec(url)
  if (!match) return undefined
  return { mime: match[1]!, data: match[2]! }
}
