import type { ModelContent } from "../../platform/text/content.ts"

/** What a `tools/call` returns, as far as toolbelt reads it. */
export interface McpCallResult {
  readonly content?: readonly unknown[]
  readonly structuredContent?: unknown
  readonly isError?: boolean
  readonly [key: string]: unknown
}

/** Shown when a failed call says nothing about why (opencode's wording). */
export const EMPTY_ERROR = "MCP tool returned an error"

/**
 * What the model sees of a call's result, in order:
 * - `text` blocks as text (settlement joins text parts with a blank line);
 * - `image` and `audio` blocks as native media (they become `data:` URL attachments on the part);
 * - an embedded `resource`: its text, or its blob as media when it has a MIME type;
 * - a `resource_link` as a line naming the resource and its URI;
 * - `structuredContent`, as JSON, when no block gave any text.
 * Unknown block types are named rather than dropped silently.
 */
export function modelContent(result: McpCallResult): ModelContent[] {
  const out: ModelContent[] = []
  for (const block of result.content ?? []) out.push(...blockContent(block))
  const hasText = out.some((item) => item.type === "text")
  if (!hasText && result.structuredContent !== undefined) {
    out.unshift({ type: "text", text: JSON.stringify(result.structuredContent, null, 2) })
  }
  return out
}

/** The text of a failed call: its text blocks, or `EMPTY_ERROR`. */
export function errorText(result: McpCallResult): string {
  const text = modelContent(result)
    .flatMap((item) => (item.type === "text" ? [item.text] : []))
    .join("\n\n")
    .trim()
  return text || EMPTY_ERROR
}

function blockContent(block: unknown): ModelContent[] {
  if (!isRecord(block)) return []
  switch (block.type) {
    case "text":
      return typeof block.text === "string" ? [{ type: "text", text: block.text }] : []
    case "image":
    case "audio":
      return media(block.mimeType, block.data) ?? [{ type: "text", text: `[${block.type} without data]` }]
    case "resource": {
      const resource = isRecord(block.resource) ? block.resource : {}
      if (typeof resource.text === "string") return [{ type: "text", text: resource.text }]
      const blob = media(resource.mimeType, resource.blob)
      if (blob) return blob
      return [{ type: "text", text: `[binary resource ${String(resource.uri ?? "")}]` }]
    }
    case "resource_link": {
      const name = typeof block.name === "string" ? block.name : String(block.uri ?? "")
      const about = typeof block.description === "string" ? `: ${block.description}` : ""
      return [{ type: "text", text: `Resource ${name} <${String(block.uri ?? "")}>${about}` }]
    }
    default:
      return [{ type: "text", text: `[unsupported MCP content: ${String(block.type)}]` }]
  }
}

function media(mime: unknown, data: unknown): ModelContent[] | undefined {
  if (typeof mime !== "string" || !mime || typeof data !== "string") return undefined
  return [{ type: "media", mime, data }]
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}
