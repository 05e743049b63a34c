/**
 * The text of a PDF, page by page (unpdf: PDF.js built for servers, plain JavaScript, no canvas or
 * native code). Each page starts with a `--- page N ---` line, so a reader can tell where it is.
 * Throws with PDF.js's reason for a file it cannot read (encrypted, damaged).
 */
export async function pdfText(bytes: Uint8Array): Promise<{ text: string; pages: number }> {
  const { extractText, getDocumentProxy } = await import("unpdf")
  // A copy as a plain Uint8Array: PDF.js takes ownership of the buffer it is given (the caller may still
  // use its own), and refuses a Node Buffer.
  const document = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 })
  try {
    const { totalPages, text } = await extractText(document, { mergePages: false })
    const pages = text.map((page, index) => `--- page ${index + 1} ---\n${page.trim()}`)
    return { text: pages.join("\n\n"), pages: totalPages }
  } finally {
    await document.destroy().catch(() => {})
  }
}
