import { describe, expect, it } from "vitest"
import { contentKind } from "./content-kind.ts"
import { charsetInMarkup, decodeText } from "./decode-text.ts"

const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(
    parts.map((part) => (typeof part === "string" ? Buffer.from(part, "latin1") : Buffer.from(part))),
  )

describe("decodeText", () => {
  it.each([
    [
      "a UTF-8 BOM beats the header",
      bytes([0xef, 0xbb, 0xbf], "caf", [0xc3, 0xa9]),
      "text/plain; charset=windows-1252",
      "café",
      "utf-8",
    ],
    ["a UTF-16LE BOM", bytes([0xff, 0xfe, 0x68, 0, 0x69, 0]), "text/plain", "hi", "utf-16le"],
    [
      "the header's charset, quoted",
      bytes("caf", [0xe9]),
      'text/plain; charset="latin1"',
      "café",
      "windows-1252",
    ],
    [
      "an unknown label falls through to UTF-8",
      bytes("caf", [0xc3, 0xa9]),
      "text/plain; charset=no-such-thing",
      "café",
      "utf-8",
    ],
    [
      "invalid UTF-8 with nothing declared is windows-1252",
      bytes([0x93], "hi", [0x94]),
      "text/plain",
      "“hi”",
      "windows-1252",
    ],
  ])("%s", (_name, body, contentType, text, charset) => {
    expect(decodeText(body, { contentType, markup: false })).toEqual({ text, charset })
  })

  it("markup declares its own encoding; a page that says UTF-16 in ASCII bytes is UTF-8", () => {
    expect(
      decodeText(bytes('<?xml version="1.0" encoding="ISO-8859-2"?><a>', [0xb1], "</a>"), {
        contentType: "application/xml",
        markup: true,
      }).text,
    ).toBe('<?xml version="1.0" encoding="ISO-8859-2"?><a>ą</a>')
    expect(
      decodeText(bytes('<meta charset="utf-16"><p>caf', [0xc3, 0xa9]), {
        contentType: "text/html",
        markup: true,
      }).charset,
    ).toBe("utf-8")
  })

  it("finds the charset of <meta> forms only in tags", () => {
    expect(charsetInMarkup(bytes("<meta charset=koi8-r>"))).toBe("koi8-r")
    expect(
      charsetInMarkup(bytes("<META HTTP-EQUIV='Content-Type' CONTENT='text/html; charset=EUC-KR'>")),
    ).toBe("EUC-KR")
    expect(charsetInMarkup(bytes("<p>charset=shift_jis in prose</p>"))).toBeUndefined()
  })
})

describe("contentKind", () => {
  it.each([
    ["text/html; charset=utf-8", "", "html"],
    ["application/xhtml+xml", "", "html"],
    ["image/webp", "", "image"],
    ["image/svg+xml", "", "text"],
    ["application/pdf", "", "pdf"],
    ["application/vnd.api+json", "", "text"],
    ["application/rss+xml", "", "text"],
    ["application/javascript", "", "text"],
    ["application/wasm", "", "binary"],
    ["application/octet-stream", "%PDF-1.7", "pdf"],
    ["", "  <!DOCTYPE html><html>", "html"],
    ["", "just words", "text"],
    ["", "\u0000\u0001\u0002binary\u0000", "binary"],
  ])("%j with %j is %s", (type, body, kind) => {
    expect(contentKind(type, Buffer.from(body, "latin1")).kind).toBe(kind)
  })
})
