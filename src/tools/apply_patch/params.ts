// The apply_patch tool's parameters and metadata, shared by its declaration (apply_patch.ts) and its
// work (execute.ts).
import { z } from "zod"
import type * as Tool from "../../runtime/tool/index.ts"
import { builtinSchema } from "../../runtime/tool/schema-source.ts"

export const parameters = builtinSchema("apply_patch", () =>
  z.object({
    patchText: z
      .string()
      .describe("The whole patch, from the line '*** Begin Patch' to the line '*** End Patch'"),
  }),
)
export type Parameters = Tool.SchemaOf<typeof parameters>

/** One file of the patch, as the metadata (and the approval request) describe it. */
export interface PatchedFile {
  /** Absolute path of the file the change starts from. */
  filePath: string
  /** The path relative to the worktree (the destination, for a move). */
  relativePath: string
  type: "add" | "update" | "delete" | "move"
  /** Absolute destination of a move. */
  movePath?: string
  /** Unified diff, common indentation trimmed; empty when omitted. */
  diff: string
  /** The same diff untrimmed; empty when omitted. */
  patch: string
  additions: number
  deletions: number
  /** Why `diff` is empty although the file changed (too large, too many changed lines). */
  diffOmitted?: string
}

export interface ApplyPatchMetadata extends Record<string, unknown> {
  /** Every file's diff, in patch order. */
  diff: string
  files: PatchedFile[]
}
