// Settlement's step 14: what the caller and the model get of a large answer. The structured value is
// bounded first (`structured-bound.ts`); when the text is that value written out (the default
// projection), the model reads the preview and what was cut instead of the head of a huge JSON text.
// Otherwise the text is bounded on its own (`output/truncate.ts`). Either way the whole goes to the
// output store, and metadata says where.

import { z } from "zod"
import type { Limits } from "../../platform/text/limits.ts"
import { truncate } from "../output/truncate.ts"
import type { ToolInternals } from "../tool/internal.ts"
import { boundStructured, describeBound } from "./structured-bound.ts"
import type { CallRequest, SettleDeps } from "./types.ts"

export interface BoundInput {
  readonly text: string
  readonly structured: unknown
  /** A v1 tool that bounded its own text. */
  readonly selfBounded: boolean
  /** The call's metadata; `truncated`, `outputPath`, `originalSize`, `truncatedSize`, `structuredOutput` are set on it. */
  readonly metadata: Record<string, unknown>
  readonly tool: ToolInternals
  readonly request: CallRequest
  readonly deps: SettleDeps
}

/** The bounded text and structured value. Rejects when the store cannot keep the whole. */
export async function bound(input: BoundInput): Promise<{ output: string; structured: unknown }> {
  const { text, metadata, request, deps } = input
  const limits = { ...deps.limits, ...withoutDirection(request.bounding) }
  let structured = input.structured
  if (structured !== undefined) {
    const bounded = await boundStructured(structured, {
      maxBytes: limits.maxBytes,
      store: deps.store,
      schema: outputSchemaOf(input.tool),
    })
    if (bounded.truncated) {
      structured = bounded.value
      metadata.structuredOutput = bounded.bound
      if (text === bounded.json) {
        // Compact, so it stays within the limit it was cut to (and is one line).
        const output = `${JSON.stringify(bounded.value)}\n\n${describeBound(bounded.bound)}`
        Object.assign(metadata, sizes(true, bounded.bound.outputPath, text, output))
        return { output, structured }
      }
    }
  }
  const owner = { sessionID: request.sessionID, callID: request.callID }
  if (input.selfBounded) {
    // A tool that cut its own output (bash) saved the whole in the output store's dir: shared too.
    if (metadata.truncated === true && typeof metadata.outputPath === "string")
      await deps.store.share(metadata.outputPath, owner)
    return { output: text, structured }
  }
  const cut = await truncate(text, {
    limits,
    direction: request.bounding?.direction ?? "head",
    store: deps.store,
    owner,
    canDelegate: deps.canDelegate?.(request.agent, request.extra ?? {}) ?? false,
    pager: () => deps.pager?.(request.agent),
  })
  if (cut.truncated) Object.assign(metadata, sizes(true, cut.outputPath, text, cut.content))
  else metadata.truncated = false
  return { output: cut.content, structured }
}

/** The spec's truncation metadata: `truncated`, `originalSize`, `truncatedSize` (its `.length`s), and where the whole is. */
function sizes(truncated: true, outputPath: string, text: string, output: string) {
  return { truncated, outputPath, originalSize: text.length, truncatedSize: output.length }
}

const outputSchemas = new WeakMap<object, Record<string, unknown> | null>()

/** The JSON Schema of the tool's declared output, as MCP lists it; none when it has none. */
function outputSchemaOf(tool: ToolInternals): Record<string, unknown> | undefined {
  if (!tool.output) return undefined
  let schema = outputSchemas.get(tool)
  if (schema === undefined) {
    try {
      schema = z.toJSONSchema(tool.output, { io: "output", unrepresentable: "any" }) as Record<
        string,
        unknown
      >
    } catch {
      schema = null
    }
    outputSchemas.set(tool, schema)
  }
  return schema ?? undefined
}

function withoutDirection(bounding: CallRequest["bounding"]): Partial<Limits> {
  if (!bounding) return {}
  const out: { maxLines?: number; maxBytes?: number } = {}
  if (bounding.maxLines !== undefined) out.maxLines = bounding.maxLines
  if (bounding.maxBytes !== undefined) out.maxBytes = bounding.maxBytes
  return out
}
