import type { FilePart } from "../../platform/text/content.ts"
import * as Tool from "../../runtime/tool/index.ts"
import { contentKind } from "./content-kind.ts"
import { decodeText } from "./decode-text.ts"
import type { FetchedPage } from "./fetch-page.ts"
import { htmlToMarkdown } from "./html-to-markdown.ts"
import { htmlToText } from "./html-to-text.ts"
import { imageSize, MAX_IMAGE_PIXELS } from "./image-size.ts"
import { htmlToMarkdownOffThread } from "./markdown-off-thread.ts"
import { NestedTooDeep, tooDeepMessage } from "./nesting.ts"
import { pdfTextOffThread } from "./pdf-off-thread.ts"
import type { Format } from "./request-headers.ts"

/**
 * HTML longer than this is converted to markdown in a worker thread (markdown-off-thread.ts); below it
 * the conversion's memory is small (~40 MB at this size) and a worker's start (~50 ms) would dominate.
 */
export const OFF_THREAD_CHARS = 512 * 1024

/** A page in the form the model reads. */
export interface Converted {
  readonly output: string
  readonly attachments: readonly FilePart[]
  /** The media type the page was taken as (declared, or sniffed when the server did not say). */
  readonly mime: string
}

/**
 * Turns a fetched page into what the model reads, each bounded by what it produces (a ToolFailure
 * says which bound was hit and what to do instead):
 * - an image (not SVG): attached as a data URL, unless its header declares more than MAX_IMAGE_PIXELS;
 * - a PDF: its text, page by page, read in a worker thread that bounds what PDF.js decodes and holds
 *   (pdf-off-thread.ts);
 * - HTML: markdown (default; a large page in a worker thread), readable text, or the HTML itself; a
 *   page nesting deeper than any readable page is refused (nesting.ts);
 * - other text (plain, markdown, JSON, XML, SVG, ...): the text as served, in every format;
 * - anything else: refused, saying what it is.
 * Text is decoded from the charset the header or the page declares. The signal (the call's timeout
 * and abort) terminates a worker at once; the conversions in this thread are linear in the page.
 */
export async function convertPage(
  page: FetchedPage,
  format: Format,
  signal?: AbortSignal,
): Promise<Converted> {
  const { kind, mime } = contentKind(page.contentType, page.bytes)
  if (kind === "image") {
    refuseHugeImage(page, mime)
    const url = `data:${mime};base64,${Buffer.from(page.bytes).toString("base64")}`
    return { output: "Image fetched successfully", attachments: [{ type: "file", mime, url }], mime }
  }
  if (kind === "pdf") {
    const { text, pages, pagesRead } = await pdfTextOffThread({
      bytes: page.bytes,
      pageUrl: page.url,
      ...(signal ? { signal } : {}),
    })
    const read =
      pagesRead < pages
        ? ` (the text of the first ${pagesRead}, at which it passed 5 MB; the rest was not read)`
        : ""
    return { output: `PDF, ${pages} page${pages === 1 ? "" : "s"}${read}:\n\n${text}`, attachments: [], mime }
  }
  if (kind === "binary") {
    throw new Tool.ToolFailure(
      `${page.url.href} is ${mime} (${page.bytes.byteLength} bytes): not text, HTML, an image or a PDF, so webfetch cannot show it. Download it with a shell command if the task needs the file.`,
    )
  }
  const { text } = decodeText(page.bytes, {
    contentType: page.contentType,
    markup: kind === "html" || mime.includes("xml"),
  })
  if (kind !== "html" || format === "html") return { output: text, attachments: [], mime }
  try {
    if (format === "text") return { output: await htmlToText(text), attachments: [], mime }
    return { output: await markdownOf(text, page.url, signal), attachments: [], mime }
  } catch (error) {
    if (error instanceof NestedTooDeep) throw new Tool.ToolFailure(tooDeepMessage(page.url.href, format))
    throw error
  }
}

function refuseHugeImage(page: FetchedPage, mime: string): void {
  const size = imageSize(page.bytes)
  if (!size || size.width * size.height <= MAX_IMAGE_PIXELS) return
  const megapixels = ((size.width * size.height) / 1_000_000).toFixed(0)
  throw new Tool.ToolFailure(
    `${page.url.href} is a ${mime} of ${size.width}×${size.height} pixels (${megapixels} megapixels once decoded, from ${page.bytes.byteLength} bytes), more than the ${MAX_IMAGE_PIXELS / 1_000_000} megapixels webfetch attaches. If the task needs it, download it with a shell command and scale it down first.`,
  )
}

function markdownOf(html: string, pageUrl: URL, signal: AbortSignal | undefined): Promise<string> {
  if (html.length <= OFF_THREAD_CHARS) return htmlToMarkdown(html, pageUrl)
  return htmlToMarkdownOffThread({ html, pageUrl, ...(signal ? { signal } : {}) })
}
