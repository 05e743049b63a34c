import type { ToolResultPart } from "ai"
import { type FilePart, parseDataUrl } from "../../platform/text/content.ts"

type ToolResultOutput = ToolResultPart["output"]

/** Providers whose API takes images inside a tool result (the others get text only). */
const MEDIA_PROVIDERS = new Set(["anthropic", "openai", "azure", "google", "google-vertex", "amazon-bedrock"])

/** Whether a provider accepts images inside tool results. */
export function acceptsToolMedia(providerID: string): boolean {
  return MEDIA_PROVIDERS.has(providerID.toLowerCase())
}

/**
 * What the model sees of a completed call: the bounded text, plus its image attachments as file
 * content when the provider takes media in tool results. Otherwise the text says what was left out,
 * so the model does not think the call returned nothing.
 */
export function modelOutput(
  result: { readonly output: string; readonly attachments?: readonly FilePart[] },
  options: { readonly media: boolean },
): ToolResultOutput {
  const images = (result.attachments ?? []).flatMap((file) => {
    if (!file.mime.startsWith("image/")) return []
    const data = parseDataUrl(file.url)
    return data ? [{ mime: file.mime, data: data.data, filename: file.filename }] : []
  })
  if (!images.length) return { type: "text", value: result.output }
  if (!options.media) {
    const note = `[${images.length} image attachment(s) (${images.map((image) => image.mime).join(", ")}) not shown: this model's provider does not accept images in tool results]`
    return { type: "text", value: result.output ? `${result.output}\n\n${note}` : note }
  }
  return {
    type: "content",
    value: [
      ...(result.output ? [{ type: "text" as const, text: result.output }] : []),
      ...images.map((image) => ({
        type: "file" as const,
        mediaType: image.mime,
        data: { type: "data" as const, data: image.data },
        ...(image.filename ? { filename: image.filename } : {}),
      })),
    ],
  }
}
