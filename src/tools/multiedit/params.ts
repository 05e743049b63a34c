// The multiedit tool's parameters and metadata, shared by its declaration (multiedit.ts) and its work
// (execute.ts).
import { z } from "zod"
import type * as Tool from "../../runtime/tool/index.ts"
import { builtinSchema } from "../../runtime/tool/schema-source.ts"
import type { DiffMetadata } from "../kit/file-edit/edit-file.ts"
import type { MatcherName } from "../kit/match/match-context.ts"

export const parameters = builtinSchema("multiedit", () =>
  z.object({
    filePath: z
      .string()
      .describe("The file to modify: an absolute path, or one relative to the project directory"),
    edits: z
      .array(
        z.object({
          oldString: z
            .string()
            .describe(
              "The text to replace; empty only in the first edit, to create a new file with newString",
            ),
          newString: z.string().describe("The text to put in its place (must differ from oldString)"),
          replaceAll: z
            .boolean()
            .optional()
            .describe("Replace every occurrence of oldString instead of exactly one (default false)"),
        }),
      )
      .min(1)
      .describe("The edits, applied in order, each to the result of the ones before it"),
  }),
)
export type Parameters = Tool.SchemaOf<typeof parameters>

/** What one edit of the call did. */
export interface EditResult {
  matcher: MatcherName | "create"
  occurrences: number
  /** 1-based lines where the replaced text started, in the content that edit was applied to. */
  lines: readonly number[]
  normalisation?: string
}

/** The diff is of all the edits together. */
export interface MultiEditMetadata extends DiffMetadata {
  results: EditResult[]
}
