import { z } from "zod"
import * as Tool from "../../runtime/tool/index.ts"
import { builtinSchema } from "../../runtime/tool/schema-source.ts"
import { forOtherModels, WRITES } from "../kit/declarations.ts"
import { withDiagnostics } from "../kit/diagnostics/edit-diagnostics.ts"
import { type DiffMetadata, diffMetadata, editFile } from "../kit/file-edit/edit-file.ts"
import { notFoundHint } from "../kit/file-edit/encode-edit.ts"
import { notFoundMessage } from "../kit/file-edit/target.ts"
import { loadText } from "../kit/load-text.ts"
import type { MatcherName } from "../kit/match/match-context.ts"

const parameters = builtinSchema("edit", () =>
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
type Parameters = Tool.SchemaOf<typeof parameters>

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

/**
 * The `edit` tool: replaces oldString with newString in one file.
 *
 * 1. Identical strings are refused before anything else.
 * 2. `editFile`: resolve the path against the project, ask `external_directory` when it is outside;
 *    then, under the file's lock: read it, check the session's ledger stamp if it has one,
 *    replace through the matcher chain (an empty oldString creates a missing file and is refused on an
 *    existing one), ask `edit` with the diff, write atomically, record the stamp, publish `file.edited`.
 * 3. Shape the result: `Edit applied successfully.`, plus what was reconciled when the match was not
 *    exact, so the model learns the file's style; the title is the path relative to the worktree.
 */
export const EditTool = Tool.define<Parameters, EditMetadata>(
  "edit",
  () => ({
    description: loadText(import.meta.url, "description.txt"),
    parameters,
    async execute(params, ctx) {
      // The matchers are loaded on first use, not at every start of the command line.
      const { describeMatch, EMPTY_MESSAGE, IDENTICAL_MESSAGE, replace } = await import(
        "../kit/match/replace.ts"
      )
      if (params.oldString === params.newString) throw new Tool.ToolFailure(IDENTICAL_MESSAGE)

      const result = await editFile({
        ctx,
        path: params.filePath,
        change: async (current, filepath) => {
          if (!current.exists) {
            if (params.oldString !== "") throw new Tool.ToolFailure(await notFoundMessage(filepath))
            return { text: params.newString, info: undefined }
          }
          if (params.oldString === "") throw new Tool.ToolFailure(EMPTY_MESSAGE)
          const replaced = replace({
            content: current.text,
            oldString: params.oldString,
            newString: params.newString,
            replaceAll: params.replaceAll ?? false,
          })
          if (!replaced.ok)
            throw new Tool.ToolFailure(replaced.message + notFoundHint(current.encoding, params.oldString))
          return { text: replaced.content, info: replaced }
        },
      })

      const match = result.info
      const output = ["Edit applied successfully."]
      if (match && (params.replaceAll ?? false)) {
        output.push(`Replaced ${match.occurrences} occurrence${match.occurrences === 1 ? "" : "s"}.`)
      }
      const note = match ? describeMatch(match.matcher, match.normalisation, match.lines) : undefined
      return withDiagnostics(ctx, [result.filepath], {
        title: result.title,
        output: note ? `${output.join(" ")}\n\n${note}` : output.join(" "),
        metadata: {
          ...diffMetadata(result.filepath, result),
          ...(match ? { matcher: match.matcher } : {}),
          occurrences: match?.occurrences ?? 0,
          lines: match?.lines ?? [],
          ...(match?.normalisation ? { normalisation: match.normalisation } : {}),
        },
      })
    },
  }),
  { available: forOtherModels, annotations: WRITES },
)
