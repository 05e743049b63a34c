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

const parameters = builtinSchema("multiedit", () =>
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
type Parameters = Tool.SchemaOf<typeof parameters>

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

/**
 * The `multiedit` tool: several edits of one file, all or none.
 *
 * 1. Identical strings in any edit are refused before anything else.
 * 2. `editFile`: resolve the path against the project, ask `external_directory` when it is outside;
 *    then, under the file's lock: read it and check the session's ledger stamp if it has one;
 *    apply the edits in order to the text in memory, each through the edit matcher chain (an empty
 *    oldString in the first edit creates a missing file); the first failing edit fails the call, naming
 *    it, before anything is asked or written. Then one `edit` ask with the combined diff, one atomic
 *    write, the ledger stamp, `file.edited`.
 * 3. Shape the result: how many edits were applied, and what was reconciled for any that did not match
 *    exactly.
 */
export const MultiEditTool = Tool.define<Parameters, MultiEditMetadata>(
  "multiedit",
  () => ({
    description: loadText(import.meta.url, "description.txt"),
    parameters,
    async execute(params, ctx) {
      // The matchers are loaded on first use, not at every start of the command line.
      const { describeMatch, EMPTY_MESSAGE, IDENTICAL_MESSAGE, replace } = await import(
        "../kit/match/replace.ts"
      )
      const total = params.edits.length
      const failure = (index: number, message: string) =>
        new Tool.ToolFailure(
          `Edit ${index + 1} of ${total} failed: ${message}\n\nNo edit was applied; the file is unchanged.`,
        )
      for (const [index, edit] of params.edits.entries()) {
        if (edit.oldString === edit.newString) throw failure(index, IDENTICAL_MESSAGE)
      }

      const result = await editFile({
        ctx,
        path: params.filePath,
        change: async (current, filepath) => {
          const results: EditResult[] = []
          let text: string
          let start = 0
          if (!current.exists) {
            if (params.edits[0]!.oldString !== "") {
              throw new Tool.ToolFailure(
                `${await notFoundMessage(filepath)}\n\nGive the first edit an empty oldString to create it.`,
              )
            }
            text = params.edits[0]!.newString
            results.push({ matcher: "create", occurrences: 1, lines: [1] })
            start = 1
          } else text = current.text
          const encoding = current.exists ? current.encoding : "utf-8"
          for (let index = start; index < total; index++) {
            const edit = params.edits[index]!
            if (edit.oldString === "") throw failure(index, EMPTY_MESSAGE)
            const replaced = replace({
              content: text,
              oldString: edit.oldString,
              newString: edit.newString,
              replaceAll: edit.replaceAll ?? false,
            })
            if (!replaced.ok) throw failure(index, replaced.message + notFoundHint(encoding, edit.oldString))
            text = replaced.content
            results.push({
              matcher: replaced.matcher,
              occurrences: replaced.occurrences,
              lines: replaced.lines,
              ...(replaced.normalisation ? { normalisation: replaced.normalisation } : {}),
            })
          }
          return { text, info: results }
        },
      })

      const results = result.info
      const notes: string[] = []
      for (const [index, edit] of results.entries()) {
        if (edit.matcher === "create") continue
        const note = describeMatch(edit.matcher, edit.normalisation, edit.lines)
        if (note) notes.push(`Edit ${index + 1}: ${note.replace(/^Note: /, "")}`)
      }
      const head = `Applied ${total} edit${total === 1 ? "" : "s"} successfully.`
      return withDiagnostics(ctx, [result.filepath], {
        title: result.title,
        output: notes.length > 0 ? `${head}\n\n${notes.join("\n")}` : head,
        metadata: { ...diffMetadata(result.filepath, result), results },
      })
    },
  }),
  { available: forOtherModels, annotations: WRITES },
)
