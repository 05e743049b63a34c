// How an advertised tool is listed over MCP: its hints and its output schema.
import type { ToolAnnotations, Tool as ToolDefinition } from "@modelcontextprotocol/server"
import { z } from "zod"
import type { Advertised } from "../../runtime/registry/registry.ts"
import type { Entry } from "../../runtime/registry/tool-set.ts"
import { isInfo } from "../../runtime/tool/define.ts"
import { type Annotations, internals } from "../../runtime/tool/internal.ts"

/**
 * The MCP hints for what a tool declares: `readOnly` → `readOnlyHint` (read, glob, grep, list),
 * `destructive` → `destructiveHint` (writers, the shell), `idempotent` → `idempotentHint`,
 * `openWorld` → `openWorldHint` (web tools). Only declared hints are sent; the client assumes the
 * spec's defaults for the rest.
 */
export function toolAnnotations(annotations: Annotations): ToolAnnotations {
  const hints: ToolAnnotations = {}
  if (annotations.readOnly !== undefined) hints.readOnlyHint = annotations.readOnly
  if (annotations.destructive !== undefined) hints.destructiveHint = annotations.destructive
  if (annotations.idempotent !== undefined) hints.idempotentHint = annotations.idempotent
  if (annotations.openWorld !== undefined) hints.openWorldHint = annotations.openWorld
  return hints
}

const outputSchemas = new WeakMap<object, Record<string, unknown> | null>()

/**
 * The JSON Schema of a tool's declared output (`Tool.make({output})`), or undefined. A v1 tool
 * (`Tool.define`) returns `{title, output, metadata}`, which is projected to text, not structured
 * output, so it declares none.
 */
export function outputSchemaOf(entry: Entry): Record<string, unknown> | undefined {
  if (isInfo(entry.value)) return undefined
  let schema = outputSchemas.get(entry.value)
  if (schema === undefined) {
    const output = internals(entry.value).output
    schema = output
      ? (z.toJSONSchema(output, { io: "output", unrepresentable: "any" }) as Record<string, unknown>)
      : null
    outputSchemas.set(entry.value, schema)
  }
  return schema ?? undefined
}

/**
 * The definition `tools/list` gives for an advertised tool: the fields toolbelt registers with the
 * SDK (name, description, the JSON Schema as it is, the hints, the output schema), as the SDK lists them.
 */
export function definitionOf(
  advertised: Advertised,
  outputSchema: Record<string, unknown> | undefined,
): ToolDefinition {
  return {
    name: advertised.name,
    description: advertised.description,
    inputSchema: advertised.inputSchema as ToolDefinition["inputSchema"],
    annotations: toolAnnotations(advertised.annotations),
    ...(outputSchema ? { outputSchema: outputSchema as ToolDefinition["outputSchema"] } : {}),
  }
}
