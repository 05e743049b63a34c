import { describe, expect, it } from "vitest"
import { pdf } from "./fixtures/media.ts"
import { pdfText } from "./pdf-text.ts"

describe("pdfText", () => {
  it("reads a Node Buffer, and leaves the caller's bytes usable", async () => {
    const bytes = pdf(["One page"])
    const copy = Buffer.from(bytes)
    expect(await pdfText(bytes)).toEqual({ text: "--- page 1 ---\nOne page", pages: 1 })
    expect(bytes.equals(copy)).toBe(true)
  })

  it("throws PDF.js's reason for bytes that are not a PDF", async () => {
    await expect(pdfText(Buffer.from("%PDF-1.4 nothing else"))).rejects.toThrow()
  })
})
