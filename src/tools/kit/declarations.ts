// What several tools declare alike, each in its own `Tool.define`: their MCP annotations and the models
// they are offered to.
import type * as Tool from "../../runtime/tool/index.ts"

/** Changes files or starts processes (MCP: destructiveHint). */
export const WRITES = { destructive: true } as const satisfies Tool.Annotations
/** Changes nothing (MCP: readOnlyHint). */
export const READS_ONLY = { readOnly: true } as const satisfies Tool.Annotations
/** Reaches outside the machine (MCP: openWorldHint) and changes nothing in it. */
export const READS_THE_WEB = { readOnly: true, openWorld: true } as const satisfies Tool.Annotations

/**
 * Models trained on Codex's patch format get `apply_patch` instead of `edit`/`write`/`multiedit`
 * (opencode's rule: a `gpt-` model that is not `oss` or `gpt-4`). Without a model (CLI, MCP) both are
 * offered.
 */
export function prefersPatch(modelID: string | undefined): boolean {
  if (!modelID) return false
  const id = modelID.toLowerCase()
  return id.includes("gpt-") && !id.includes("oss") && !id.includes("gpt-4")
}

/** Offered to models that prefer patches, and wherever there is no model. */
export const forPatchModels = (env: Tool.Availability): boolean => !env.modelID || prefersPatch(env.modelID)
/** Offered to every model that does not prefer patches. */
export const forOtherModels = (env: Tool.Availability): boolean => !prefersPatch(env.modelID)
