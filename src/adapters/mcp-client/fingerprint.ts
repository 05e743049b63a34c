import { createSha256 } from "../../platform/util/sha256.ts"
import { canonicalJSON } from "../../runtime/permission/digest.ts"

/** What a pin covers of an MCP tool: everything the model is told about it. */
export interface ToolDefinition {
  readonly name: string
  readonly description: string
  readonly inputSchema: unknown
  readonly annotations: unknown
}

/** The parts of a listed MCP tool that a pin covers (a missing description or annotations count as empty). */
export function definitionOf(tool: {
  readonly name: string
  readonly description?: string | undefined
  readonly inputSchema?: unknown
  readonly annotations?: unknown
}): ToolDefinition {
  return {
    name: tool.name,
    description: tool.description ?? "",
    inputSchema: tool.inputSchema ?? null,
    annotations: tool.annotations ?? null,
  }
}

/** sha256 (hex) of the canonical JSON (keys sorted at every level) of a tool's definition. */
export function fingerprint(definition: ToolDefinition): string {
  return createSha256()
    .update(canonicalJSON(definition) ?? "null")
    .digest("hex")
}

/** Which fields of a definition differ from a pinned one (for the person asked about drift). */
export function changedFields(before: unknown, after: ToolDefinition): string[] {
  const old = (typeof before === "object" && before !== null ? before : {}) as Record<string, unknown>
  return (["name", "description", "inputSchema", "annotations"] as const).filter(
    (field) => canonicalJSON(old[field] ?? null) !== canonicalJSON(after[field]),
  )
}
