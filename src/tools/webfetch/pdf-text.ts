/** The most text read out of one PDF: as much as webfetch reads of any page over the wire (5 MB). */
export const MAX_PDF_TEXT_CHARS = 5 * 1024 * 1024

/** A PDF's text, and how much of it that is. */
export interface PdfText {
  readonly text: string
  /** The document's page count. */
  readonly pages: number
  /** Pages whose text is in `text`: fewer than `pages` when the text passed `maxChars` first. */
  readonly pagesRead: number
}

/**
 * The text of a PDF, page by page (unpdf: PDF.js built for servers, plain JavaScript, no canvas or
 * native code). Each page starts with a `--- page N ---` line, so a reader can tell where it is.
 * Pages are read one at a time and reading stops after the page whose text passes `maxChars`, so the
 * text held is bounded by what it produces. The memory PDF.js needs to decode the file (its streams
 * may inflate a thousandfold) is bounded by the worker that runs this (pdf-off-thread.ts).
 * Throws with PDF.js's reason for a file it cannot read (encrypted, damaged).
 */
export async function pdfText(bytes: Uint8Array, maxChars = MAX_PDF_TEXT_CHARS): Promise<PdfText> {
  const { getDocumentProxy } = await import("unpdf")
  // A copy as a plain Uint8Array: PDF.js takes ownership of the buffer it is given (the caller may still
  // use its own), and refuses a Node Buffer.
  const document = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 })
  try {
    const parts: string[] = []
    let chars = 0
    let pagesRead = 0
    while (pagesRead < document.numPages && chars <= maxChars) {
      const page = await document.getPage(pagesRead + 1)
      const content = await page.getTextContent()
      page.cleanup()
      pagesRead++
      let text = ""
      for (const item of content.items)
        if ("str" in item && item.str != null) text += item.str + (item.hasEOL ? "\n" : "")
      const part = `--- page ${pagesRead} ---\n${text.trim()}`
      parts.push(part)
      chars += part.length
    }
    return { text: parts.join("\n\n"), pages: document.numPages, pagesRead }
  } finally {
    await document.destroy().catch(() => {})
  }
}
