// The edit tool's parameters and metadata, shared by its declaration (edit.ts) and its work (execute.ts).
import { z } from "zod"
import type * as Tool from "../../runtime/tool/index.ts"
import { builtinSchema } from "../../runtime/tool/schema-source.ts"
import type { DiffMetadata } from "../kit/file-edit/edit-file.ts"
import type { MatcherName } from "../kit/match/match-context.ts"

export const parameters = builtinSchema("edit", () =>
  z.object({
    filePath: z
      .string()
      .describe("The file to modify: an absolute path, or one relative to the project directory"),
    oldString: z
      .string()
      .describe("The text to replace, copied from the file; empty to create a new file with newString"),
    newString: z.string().describe("The text to put in its place (must differ from oldString)"),
    replaceAll: z
      .boolean()
      .optional()
      .describe("Replace every occurrence of oldString instead of exactly one (default false)"),
  }),
)
export type Parameters = Tool.SchemaOf<typeof parameters>

export interface EditMetadata extends DiffMetadata {
  /** Which matcher found oldString; absent when the file was created. */
  matcher?: MatcherName
  /** How many places were replaced. */
  occurrences: number
  /** 1-based lines (in the file before the edit) where the replaced text started. */
  lines: readonly number[]
  /** What was reconciled when the match was not exact (also in the output). */
  normalisation?: string
}
