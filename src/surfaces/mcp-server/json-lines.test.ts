import { describe, expect, it } from "vitest"
import { JsonLines, MAX_CACHED_CHARS, MIN_CACHED_CHARS } from "./json-lines.ts"

/** A page of text with what JSON must escape: quotes, backslashes, newlines, tabs, controls, a lone surrogate. */
const page = (seed: string, chars = 40_000) => {
  const line = `${seed} "quoted" \\path\\ \t tab \u0001 ctl é 𝄞 \ud800 lone\n`
  return line.repeat(Math.ceil(chars / line.length)).slice(0, chars)
}
const answer = (id: number, text: string) => ({
  jsonrpc: "2.0",
  id,
  result: { content: [{ type: "text", text }], structuredContent: { output: text, short: "x" } },
})

/** The line's bytes, joined. */
const bytesOf = (chunks: readonly (string | Buffer)[]) =>
  Buffer.concat(chunks.map((chunk) => (typeof chunk === "string" ? Buffer.from(chunk) : chunk)))

/** What `lines` sends for `message`, as text without the newline. */
const stringify = (lines: JsonLines, message: unknown) =>
  bytesOf(lines.line(message)).toString("utf8").slice(0, -1)

describe("JsonLines", () => {
  it("writes a line's bytes as JSON.stringify and a newline, each long text as bytes escaped once", () => {
    const lines = new JsonLines()
    const text = page("bytes")
    const other = page("other", 9000)
    // A text sent twice in one message (content and structured content) and a second long text.
    const message = (id: number) => ({
      ...answer(id, text),
      extra: { other, marks: "\u0000abc:0\u0000 \u0000" },
    })
    for (let id = 1; id <= 3; id++) {
      const chunks = lines.line(message(id))
      expect(bytesOf(chunks).equals(Buffer.from(`${JSON.stringify(message(id))}\n`))).toBe(true)
      // The long texts (one of them twice in the message) travel as kept bytes, not in a string
      // rebuilt for each line.
      expect(chunks.filter((chunk) => Buffer.isBuffer(chunk))).toHaveLength(3)
    }
    const [first, second] = [lines.line(message(4)), lines.line(message(5))]
    expect(first[1]).toBe(second[1])
  })

  it("takes no string of a message for a kept text, however it looks", () => {
    const lines = new JsonLines()
    const text = page("kept")
    lines.line({ text })
    // Strings shaped like the marks, with NULs and numbers, beside the kept text and alone.
    for (const decoy of [
      "\u00000\u0000",
      "\u0000deadbeefdeadbeef:0\u0000",
      `\u0000${"0".repeat(16)}:1\u0000`,
    ]) {
      for (const message of [{ a: decoy, text, b: decoy }, { a: decoy }]) {
        expect(bytesOf(lines.line(message)).toString()).toBe(`${JSON.stringify(message)}\n`)
      }
    }
  })

  it("writes what JSON.stringify writes, the first time and every time after", () => {
    const lines = new JsonLines()
    const text = page("a")
    for (let id = 1; id <= 4; id++) {
      const line = stringify(lines, answer(id, text))
      expect(line).toBe(JSON.stringify(answer(id, text)))
      expect(JSON.parse(line).result.content[0].text).toBe(text)
    }
    // The same content in another string object is the same text.
    expect(stringify(lines, answer(5, `${text.slice(0, 10)}${text.slice(10)}`))).toBe(
      JSON.stringify(answer(5, text)),
    )
  })

  it("escapes a long text once, from its first sending; short texts never", () => {
    const lines = new JsonLines()
    const single = (id: number, text: string) => ({ id, result: { content: [{ type: "text", text }] } })
    const first = lines.line(single(1, page("once")))
    stringify(lines, single(2, "short".repeat(10)))
    expect(lines.escapedTexts).toBe(1)
    // Sent again: the same bytes, escaped once.
    expect(lines.line(single(3, page("once")))[1]).toBe(first[1])
    expect(lines.escapedTexts).toBe(1)
    expect(stringify(lines, { id: 4, text: "x".repeat(MIN_CACHED_CHARS - 1) })).toBe(
      JSON.stringify({ id: 4, text: "x".repeat(MIN_CACHED_CHARS - 1) }),
    )
    expect(lines.escapedTexts).toBe(1)
  })

  it("holds at most MAX_CACHED_CHARS of texts, forgetting the least recently sent first", () => {
    const lines = new JsonLines()
    const kept = page("kept", 100_000)
    stringify(lines, { id: 0, text: kept })
    stringify(lines, { id: 0, text: kept })
    for (let n = 0; n < 120; n++) {
      const text = page(`other ${n}`, 100_000)
      if (n >= 60) expect(lines.holds(page(`other ${n - 60}`, 100_000))).toBe(false)
      const single = { id: n, result: { content: [{ type: "text", text }] } }
      expect(stringify(lines, single)).toBe(JSON.stringify(single))
      expect(lines.chars).toBeLessThanOrEqual(MAX_CACHED_CHARS)
      // Sent again now and then: the newest end, never the first forgotten.
      expect(lines.holds(kept)).toBe(true)
      if (n % 10 === 0) stringify(lines, { id: n, text: kept })
    }
  })
})
