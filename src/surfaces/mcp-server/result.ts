// A settled call as an MCP `tools/call` result. Pure.
import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/server"
import { type FilePart, parseDataUrl } from "../../platform/text/content.ts"
import type { Settlement } from "../../runtime/settle/settle.ts"
import { describeBound, type StructuredBound } from "../../runtime/settle/structured-bound.ts"

export interface ResultOptions {
  /** The tool declares an output schema: the result must carry `structuredContent`. */
  readonly structured: boolean
  /** Replaces the error text (an ask this surface rejected for the client says why, and how to allow it). */
  readonly error?: string
}

/**
 * 1. An error (invalid input, tool failure, rejected permission, interruption) → its text, `isError`.
 * 2. Completed → the model-facing text, then each attachment: `data:` images and audio as image and
 *    audio content, other `data:` files as embedded resources, any other URL as a resource link.
 * 3. A tool with an output schema → its encoded value as `structuredContent`; a value over the output
 *    limit arrives as settlement's preview (it fits the schema where it can), with a text saying what
 *    was cut and where the whole is. A successful call is never `isError`, however much was cut.
 */
export function toCallToolResult(settlement: Settlement, options: ResultOptions): CallToolResult {
  if (settlement.status === "error") {
    return { content: [{ type: "text", text: options.error ?? settlement.error }], isError: true }
  }
  const content: ContentBlock[] = [{ type: "text", text: settlement.output }]
  settlement.attachments.forEach((file, index) => {
    content.push(attachmentBlock(file, index))
  })
  if (!options.structured) return { content }
  if (settlement.structured !== undefined) {
    // A value too large to send was cut to a preview that fits the schema: say so beside it, once.
    const cut = settlement.metadata.structuredOutput as StructuredBound | undefined
    if (cut?.truncated && !settlement.output.includes(cut.outputPath)) {
      content.push({ type: "text", text: describeBound(cut) })
    }
    return { content, structuredContent: settlement.structured as Record<string, unknown> }
  }
  // A string output (an output schema of type string): the text is the value, bounded like any text.
  return { content, structuredContent: settlement.output as unknown as Record<string, unknown> }
}

function attachmentBlock(file: FilePart, index: number): ContentBlock {
  const data = parseDataUrl(file.url)
  const name = file.filename ?? `attachment-${index + 1}`
  if (!data) return { type: "resource_link", uri: file.url, name, mimeType: file.mime }
  if (data.mime.startsWith("image/")) return { type: "image", data: data.data, mimeType: data.mime }
  if (data.mime.startsWith("audio/")) return { type: "audio", data: data.data, mimeType: data.mime }
  return {
    type: "resource",
    resource: { uri: `attachment:///${encodeURIComponent(name)}`, mimeType: data.mime, blob: data.data },
  }
}

/** A tool result that is an error the model reads. */
export function errorResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true }
}

/** The answer to a retry for a call that no longer waits for one. */
export function notWaiting(answerTimeoutMs: number): CallToolResult {
  const minutes = Math.round(answerTimeoutMs / 60_000)
  const within = minutes >= 1 ? `${minutes} minute${minutes === 1 ? "" : "s"}` : `${answerTimeoutMs} ms`
  return errorResult(
    `This call is no longer waiting for an answer: it finished, was cancelled, or was not answered within ${within}. Call the tool again.`,
  )
}
