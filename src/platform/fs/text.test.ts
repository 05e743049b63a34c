import { createHash } from "node:crypto"
import { describe, expect, test } from "vitest"
import {
  applyLineEnding,
  BOM,
  detectBom,
  detectLineEnding,
  hashContent,
  isProbablyBinary,
  normalizeToLf,
  sniffMedia,
  splitBom,
  stripBom,
  withBom,
} from "./text.ts"

const bytes = (...values: number[]) => Uint8Array.from(values)

describe("detectBom", () => {
  test.each([
    ["UTF-8", bytes(0xef, 0xbb, 0xbf, 0x61), { encoding: "utf-8", length: 3 }],
    ["UTF-16 LE", bytes(0xff, 0xfe, 0x61, 0x00), { encoding: "utf-16le", length: 2 }],
    ["UTF-16 BE", bytes(0xfe, 0xff, 0x00, 0x61), { encoding: "utf-16be", length: 2 }],
    ["none", bytes(0x61, 0x62), undefined],
    ["half a UTF-8 mark", bytes(0xef, 0xbb), undefined],
    ["empty", bytes(), undefined],
  ])("%s", (_, buffer, expected) => {
    expect(detectBom(buffer)).toEqual(expected)
  })
})

describe("BOM in text", () => {
  test("splitBom, stripBom and withBom round-trip", () => {
    expect(splitBom(`${BOM}abc`)).toEqual({ bom: true, text: "abc" })
    expect(splitBom("abc")).toEqual({ bom: false, text: "abc" })
    expect(stripBom(`${BOM}abc`)).toBe("abc")
    expect(stripBom("a\uFEFFb")).toBe("a\uFEFFb")
    expect(withBom("abc", true)).toBe(`${BOM}abc`)
    expect(withBom(`${BOM}abc`, true)).toBe(`${BOM}abc`)
    expect(withBom(`${BOM}abc`, false)).toBe("abc")
  })
})

describe("detectLineEnding", () => {
  test.each([
    ["no line break", "abc", "\n"],
    ["empty", "", "\n"],
    ["LF only", "a\nb\n", "\n"],
    ["CRLF only", "a\r\nb\r\n", "\r\n"],
    ["mostly CRLF", "a\r\nb\r\nc\nd\r\n", "\r\n"],
    ["mostly LF", "a\nb\nc\r\nd\n", "\n"],
    ["tie, CRLF first", "a\r\nb\n", "\r\n"],
    ["tie, LF first", "a\nb\r\n", "\n"],
    ["lone CR is not a line ending", "a\rb\rc\n", "\n"],
    ["CRLF at the very start", "\r\nx", "\r\n"],
  ])("%s", (_, text, expected) => {
    expect(detectLineEnding(text)).toBe(expected)
  })
})

describe("line ending conversion", () => {
  test.each([
    ["a\r\nb\r\n", "a\nb\n"],
    ["a\nb", "a\nb"],
    ["a\rb\r\n", "a\rb\n"],
    ["\r\n\r\n", "\n\n"],
  ])("normalizeToLf(%j)", (text, expected) => {
    expect(normalizeToLf(text)).toBe(expected)
  })

  test.each([
    ["a\nb\r\nc", "\r\n", "a\r\nb\r\nc"],
    ["a\nb\r\nc", "\n", "a\nb\nc"],
    ["a\r\n", "\r\n", "a\r\n"],
    ["x", "\r\n", "x"],
  ] as const)("applyLineEnding(%j, %j)", (text, eol, expected) => {
    expect(applyLineEnding(text, eol)).toBe(expected)
  })
})

describe("hashContent", () => {
  test("is SHA-256 hex of the UTF-8 bytes, the same for a string and its bytes", () => {
    const text = `${BOM}héllo\r\n`
    const expected = createHash("sha256").update(Buffer.from(text, "utf8")).digest("hex")
    expect(hashContent(text)).toBe(expected)
    expect(hashContent(Buffer.from(text, "utf8"))).toBe(expected)
    expect(hashContent("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    expect(hashContent("a")).not.toBe(hashContent("b"))
  })
})

describe("isProbablyBinary", () => {
  const text = Buffer.from("export const x = 1\n\tindented\r\n")
  const withNul = Buffer.from("abc\0def")
  const controls = Buffer.from(Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? 1 : 65)))
  const fewControls = Buffer.from(Array.from({ length: 100 }, (_, i) => (i % 10 === 0 ? 27 : 65)))
  const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("hello\n", "utf16le")])
  const utf16be = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from("hello\n", "utf16le").swap16()])
  const lateNul = Buffer.concat([Buffer.alloc(9000, 65), Buffer.from([0])])

  test.each([
    ["plain text", text, undefined, false],
    ["empty", Buffer.alloc(0), undefined, false],
    ["a NUL byte", withNul, undefined, true],
    ["half control bytes", controls, undefined, true],
    ["10 % escape bytes (ANSI colours)", fewControls, undefined, false],
    ["UTF-8 text with accents", Buffer.from("héllo wörld ✓\n"), undefined, false],
    ["UTF-16 LE with BOM", utf16, undefined, false],
    ["UTF-16 BE with BOM", utf16be, undefined, false],
    ["UTF-8 BOM", Buffer.from(`${BOM}text`), undefined, false],
    ["a NUL beyond the first 8 KB", lateNul, undefined, false],
    ["text with a binary extension", text, ".zip", true],
    ["extension without dot, upper case", text, "WASM", true],
    ["extension from a file name", text, "/x/archive.tar.gz", true],
    ["text extension", text, ".ts", false],
    [".svg stays text", Buffer.from("<svg xmlns='http://www.w3.org/2000/svg'/>"), ".svg", false],
  ])("%s", (_, buffer, extension, expected) => {
    expect(isProbablyBinary(buffer, extension)).toBe(expected)
  })
})

describe("sniffMedia", () => {
  const png = bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13)
  const riff = (kind: string) =>
    Buffer.concat([Buffer.from("RIFF"), Buffer.from([1, 2, 3, 4]), Buffer.from(kind)])

  test.each([
    ["PNG", png, { mime: "image/png", kind: "image" }],
    ["JPEG", bytes(0xff, 0xd8, 0xff, 0xe0, 0, 0x10), { mime: "image/jpeg", kind: "image" }],
    ["GIF87a", Buffer.from("GIF87a...."), { mime: "image/gif", kind: "image" }],
    ["GIF89a", Buffer.from("GIF89a...."), { mime: "image/gif", kind: "image" }],
    ["WebP", riff("WEBPVP8 "), { mime: "image/webp", kind: "image" }],
    ["PDF", Buffer.from("%PDF-1.7\n"), { mime: "application/pdf", kind: "pdf" }],
    ["WAV is RIFF but not WebP", riff("WAVEfmt "), undefined],
    ["BMP", Buffer.from("BM\x36\x00\x00\x00", "latin1"), undefined],
    ["TIFF", bytes(0x49, 0x49, 0x2a, 0x00), undefined],
    ["AVIF", Buffer.concat([bytes(0, 0, 0, 0x20), Buffer.from("ftypavif")]), undefined],
    ["SVG", Buffer.from("<svg></svg>"), undefined],
    ["truncated PNG signature", png.subarray(0, 4), undefined],
    ["empty", bytes(), undefined],
  ])("%s", (_, buffer, expected) => {
    expect(sniffMedia(buffer)).toEqual(expected)
  })
})
