import { detectBom } from "../../platform/fs/text.ts"

/** How far into a page its `<meta charset>` or XML declaration is looked for (the HTML spec says 1024). */
const PRESCAN_BYTES = 4096

/**
 * Decodes a body to text, finding its encoding as a browser would:
 * 1. a byte order mark;
 * 2. the `charset` of the Content-Type header;
 * 3. for markup, `<meta charset>`, `<meta http-equiv="Content-Type" content="...charset=...">` or the
 *    XML declaration's `encoding`, in the first bytes;
 * 4. UTF-8 if the bytes are valid UTF-8, else windows-1252 (what browsers assume for old pages).
 * A label TextDecoder does not know (a typo on the page) falls through to the next step.
 */
export function decodeText(
  bytes: Uint8Array,
  { contentType, markup }: { contentType: string; markup: boolean },
): { text: string; charset: string } {
  const bom = detectBom(bytes)
  if (bom) return decodeWith(bom.encoding, bytes.subarray(bom.length))
  const declared = charsetParam(contentType) ?? (markup ? charsetInMarkup(bytes) : undefined)
  const decoder = declared ? decoderFor(declared) : undefined
  if (decoder) return { text: decoder.decode(bytes), charset: decoder.encoding }
  try {
    return { text: new TextDecoder("utf-8", { fatal: true }).decode(bytes), charset: "utf-8" }
  } catch {
    return decodeWith("windows-1252", bytes)
  }
}

function decodeWith(label: string, bytes: Uint8Array): { text: string; charset: string } {
  const decoder = new TextDecoder(label)
  return { text: decoder.decode(bytes), charset: decoder.encoding }
}

function decoderFor(label: string): InstanceType<typeof TextDecoder> | undefined {
  try {
    // A page that says UTF-16 in its own (ASCII-compatible) bytes cannot be UTF-16: the spec reads it as UTF-8.
    const decoder = new TextDecoder(label.trim())
    return decoder.encoding.startsWith("utf-16") ? new TextDecoder("utf-8") : decoder
  } catch {
    return undefined
  }
}

/** The `charset` parameter of a Content-Type value. */
export function charsetParam(contentType: string): string | undefined {
  const match = /;\s*charset\s*=\s*("?)([^";\s]+)\1/i.exec(contentType)
  return match?.[2]
}

/** The encoding a page declares in its first bytes (meta charset, http-equiv, XML declaration). */
export function charsetInMarkup(bytes: Uint8Array): string | undefined {
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, PRESCAN_BYTES))
  const xml = /^\s*<\?xml[^>]*\bencoding\s*=\s*["']([^"']+)["']/i.exec(head)
  if (xml) return xml[1]
  for (const meta of head.matchAll(/<meta\b[^>]*>/gi)) {
    const tag = meta[0]
    const direct = /\bcharset\s*=\s*["']?([^"'\s/>;]+)/i.exec(tag)
    if (direct && !/\bcontent\s*=/i.test(tag)) return direct[1]
    if (/\bhttp-equiv\s*=\s*["']?content-type/i.test(tag)) {
      const content = /\bcontent\s*=\s*(["'])([^"']*)\1/i.exec(tag)
      const charset = content ? charsetParam(content[2]!) : undefined
      if (charset) return charset
    }
  }
  return undefined
}
