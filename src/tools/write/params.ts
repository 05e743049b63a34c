// The write tool's parameters and metadata, shared by its declaration (write.ts) and its work
// (execute.ts).
import { z } from "zod"
import type * as Tool from "../../runtime/tool/index.ts"
import { builtinSchema } from "../../runtime/tool/schema-source.ts"

export const DIFF_CONTEXT = 4

export const parameters = builtinSchema("write", () =>
  z.object({
    filePath: z
      .string()
      .describe("The absolute path to the file to write (a path relative to the project also works)"),
    content: z.string().describe("The content to write to the file, exactly as it should be saved"),
  }),
)
export type Parameters = Tool.SchemaOf<typeof parameters>

export interface WriteMetadata extends Record<string, unknown> {
  /** Unified diff of the old content (empty for a new file) to the new, common indentation trimmed. */
  diff: string
  additions: number
  deletions: number
  /** Whether the file existed before this write. */
  exists: boolean
  filepath: string
  /** Why `diff` is empty although the content changed (binary, too large, too many changed lines). */
  diffOmitted?: string
}
