import { type HeapLimits, runOffThread } from "./off-thread.ts"
import { MAX_PDF_TEXT_CHARS, type PdfText } from "./pdf-text.ts"
import type { PdfJob } from "./pdf-worker.ts"

/** The PDF worker's heap: PDF.js's objects for a 5 MB document fit well inside it. */
export const PDF_LIMITS: HeapLimits = { maxYoungGenerationSizeMb: 16, maxOldGenerationSizeMb: 256 }

/**
 * The most the PDF worker may hold outside its heap: PDF.js's decoded streams (a content stream, a
 * font, an image) live in typed arrays there. A stream of zeros deflates a thousandfold, so a 5 MB
 * file could otherwise decode to gigabytes.
 */
export const MAX_PDF_DECODED_MB = 128

/**
 * pdfText in a worker thread of its own, always (a small file may decode to a huge one): its heap is
 * capped by PDF_LIMITS, what it decodes by MAX_PDF_DECODED_MB, its text by `maxChars`, and its time by
 * the signal (the call's timeout and abort), which terminates it. A bound that is hit is a ToolFailure
 * saying which, and what to do instead.
 */
export function pdfTextOffThread(input: {
  bytes: Uint8Array
  pageUrl: URL
  signal?: AbortSignal
  maxChars?: number
  maxDecodedMb?: number
}): Promise<PdfText> {
  const { bytes, pageUrl, signal, maxChars = MAX_PDF_TEXT_CHARS, maxDecodedMb = MAX_PDF_DECODED_MB } = input
  const extension = import.meta.url.endsWith(".ts") ? ".ts" : ".js"
  const job: PdfJob = { bytes, url: pageUrl.href, maxChars }
  const instead =
    "If the task needs its text, download it with a shell command and extract the text there (e.g. pdftotext)."
  return runOffThread<PdfText>({
    script: new URL(`./pdf-worker${extension}`, import.meta.url),
    data: job,
    limits: PDF_LIMITS,
    ...(signal ? { signal } : {}),
    maxExternalMb: maxDecodedMb,
    outOfMemory: () =>
      `Reading the PDF at ${pageUrl.href} (${bytes.byteLength} bytes) needs more than ${PDF_LIMITS.maxOldGenerationSizeMb} MB of memory, so it was stopped. ${instead}`,
    tooMuchExternal: () =>
      `Reading the PDF at ${pageUrl.href} was stopped: its compressed streams decode to more than ${maxDecodedMb} MB (the file is ${bytes.byteLength} bytes), more than webfetch decodes for one document. ${instead}`,
  })
}
