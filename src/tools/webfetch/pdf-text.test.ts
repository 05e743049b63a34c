import { describe, expect, it } from "vitest"
import { pdf } from "./fixtures/media.ts"
import { pdfText } from "./pdf-text.ts"

describe("pdfText", () => {
  it("reads a Node Buffer, and leaves the caller's bytes usable", async () => {
    const bytes = pdf(["One page"])
    const copy = Buffer.from(bytes)
    expect(await pdfText(bytes)).toEqual({ text: "--- page 1 ---\nOne page", pages: 1, pagesRead: 1 })
    expect(bytes.equals(copy)).toBe(true)
  })

  it("stops reading after the page whose text passes the cap, and says how many pages it read", async () => {
    const bytes = pdf(["First page text", "Second page text", "Third page text"])
    expect(await pdfText(bytes, 40)).toEqual({
      text: "--- page 1 ---\nFirst page text\n\n--- page 2 ---\nSecond page text",
      pages: 3,
      pagesRead: 2,
    })
  })

  it("throws PDF.js's reason for bytes that are not a PDF", async () => {
    await expect(pdfText(Buffer.from("%PDF-1.4 nothing else"))).rejects.toThrow()
  })
})
