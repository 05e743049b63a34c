import type { FilePart } from "../../platform/text/content.ts"
import * as Tool from "../../runtime/tool/index.ts"
import { contentKind } from "./content-kind.ts"
import { decodeText } from "./decode-text.ts"
import type { FetchedPage } from "./fetch-page.ts"
import { htmlToMarkdown } from "./html-to-markdown.ts"
import { htmlToText } from "./html-to-text.ts"
import { htmlToMarkdownOffThread } from "./markdown-off-thread.ts"
import { pdfText } from "./pdf-text.ts"
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
 * Turns a fetched page into what the model reads:
 * - an image (not SVG): attached as a data URL;
 * - a PDF: its text, page by page;
 * - HTML: markdown (default; a large page in a worker thread), readable text, or the HTML itself;
 * - other text (plain, markdown, JSON, XML, SVG, ...): the text as served, in every format;
 * - anything else: refused, saying what it is.
 * Text is decoded from the charset the header or the page declares.
 */
export async function convertPage(
  page: FetchedPage,
  format: Format,
  signal?: AbortSignal,
): Promise<Converted> {
  const { kind, mime } = contentKind(page.contentType, page.bytes)
  if (kind === "image") {
    const url = `data:${mime};base64,${Buffer.from(page.bytes).toString("base64")}`
    return { output: "Image fetched successfully", attachments: [{ type: "file", mime, url }], mime }
  }
  if (kind === "pdf") {
    const { text, pages } = await readPdf(page)
    return { output: `PDF, ${pages} page${pages === 1 ? "" : "s"}:\n\n${text}`, attachments: [], mime }
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
  if (format === "text") return { output: await htmlToText(text), attachments: [], mime }
  return { output: await markdownOf(text, page.url, signal), attachments: [], mime }
}

function markdownOf(html: string, pageUrl: URL, signal: AbortSignal | undefined): Promise<string> {
  if (html.length <= OFF_THREAD_CHARS) return htmlToMarkdown(html, pageUrl)
  return htmlToMarkdownOffThread({ html, pageUrl, ...(signal ? { signal } : {}) })
}

async function readPdf(page: FetchedPage): Promise<{ text: string; pages: number }> {
  try {
    return await pdfText(page.bytes)
  } catch (error) {
    throw new Tool.ToolFailure(
      `Cannot read the PDF at ${page.url.href}: ${(error as Error).message}. It may be encrypted or damaged.`,
    )
  }
}
