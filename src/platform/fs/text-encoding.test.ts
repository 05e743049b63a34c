import { describe, expect, it } from "vitest"
import { decodeText, encodeText } from "./text-encoding.ts"

const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(
    parts.map((part) => (typeof part === "string" ? Buffer.from(part, "utf8") : Buffer.from(part))),
  )

describe("decodeText", () => {
  const decodes: [string, Buffer, { encoding: string; bom: boolean; text: string }][] = [
    ["ASCII", bytes("plain\n"), { encoding: "utf-8", bom: false, text: "plain\n" }],
    ["UTF-8", bytes("café €\n"), { encoding: "utf-8", bom: false, text: "café €\n" }],
    ["UTF-8 with BOM", bytes([0xef, 0xbb, 0xbf], "é\n"), { encoding: "utf-8", bom: true, text: "é\n" }],
    [
      "UTF-16 LE with BOM",
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("héllo 😀\r\n", "utf16le")]),
      { encoding: "utf-16le", bom: true, text: "héllo 😀\r\n" },
    ],
    [
      "UTF-16 BE with BOM",
      Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from("héllo\n", "utf16le").swap16()]),
      { encoding: "utf-16be", bom: true, text: "héllo\n" },
    ],
    [
      "latin-1",
      bytes("caf", [0xe9], " na", [0xef], "ve\n"),
      { encoding: "windows-1252", bom: false, text: "café naïve\n" },
    ],
    [
      "windows-1252 quotes and euro",
      bytes([0x93], "hi", [0x94], " ", [0x80], "5\n"),
      { encoding: "windows-1252", bom: false, text: "\u201chi\u201d \u20ac5\n" },
    ],
    [
      "windows-1252 unassigned bytes",
      bytes([0x81, 0x8d, 0x8f, 0x90, 0x9d]),
      { encoding: "windows-1252", bom: false, text: "\u0081\u008d\u008f\u0090\u009d" },
    ],
    ["empty", bytes(), { encoding: "utf-8", bom: false, text: "" }],
  ]
  for (const [name, input, expected] of decodes) {
    it(`decodes ${name} and encodes it back to the same bytes`, () => {
      const decoded = decodeText(input)
      expect(decoded).toEqual({ ok: true, ...expected })
      if (!decoded.ok) return
      const again = encodeText(decoded.text, decoded.encoding, decoded.bom)
      expect(again.ok && again.bytes.equals(input)).toBe(true)
    })
  }

  it("every single byte decodes as windows-1252 and round-trips", () => {
    const all = Buffer.from(Array.from({ length: 256 }, (_, index) => index).filter((b) => b >= 0x80))
    const decoded = decodeText(all)
    expect(decoded.ok && decoded.encoding).toBe("windows-1252")
  })

  const refusals: [string, Buffer, RegExp][] = [
    [
      "UTF-8 mixed with latin-1",
      bytes("café ", [0xe9], "\n"),
      /mixes UTF-8 with bytes that are not UTF-8 \(the first at byte 6\)/,
    ],
    [
      "a UTF-8 BOM before invalid bytes",
      bytes([0xef, 0xbb, 0xbf], "a", [0xe9]),
      /UTF-8 byte order mark but is not valid UTF-8/,
    ],
    ["an odd-length UTF-16 body", Buffer.from([0xff, 0xfe, 0x41, 0x00, 0x42]), /odd number of bytes/],
  ]
  for (const [name, input, message] of refusals) {
    it(`refuses ${name}, saying what it found`, () => {
      const decoded = decodeText(input)
      expect(decoded.ok).toBe(false)
      if (!decoded.ok) expect(decoded.reason).toMatch(message)
    })
  }
})

describe("encodeText", () => {
  it("refuses a character windows-1252 cannot hold, naming it", () => {
    expect(encodeText("a 😀", "windows-1252", false)).toEqual({
      ok: false,
      reason: 'the character "😀" (U+1F600) cannot be written in windows-1252 (latin-1)',
    })
    expect(encodeText("\u0080", "windows-1252", false).ok).toBe(false)
  })

  it("writes the mark of each encoding", () => {
    const mark = (encoding: Parameters<typeof encodeText>[1]) => {
      const encoded = encodeText("", encoding, true)
      return encoded.ok ? [...encoded.bytes] : undefined
    }
    expect(mark("utf-8")).toEqual([0xef, 0xbb, 0xbf])
    expect(mark("utf-16le")).toEqual([0xff, 0xfe])
    expect(mark("utf-16be")).toEqual([0xfe, 0xff])
  })
})
