// The multiedit tool's work (multiedit.ts declares the tool): the edits applied in order in memory,
// all or none, under the file's lock, and the result. Loaded at the first call.
import type { z } from "zod"
import * as Tool from "../../runtime/tool/index.ts"
import { withDiagnostics } from "../kit/diagnostics/edit-diagnostics.ts"
import { diffMetadata, editFile } from "../kit/file-edit/edit-file.ts"
import { notFoundHint } from "../kit/file-edit/encode-edit.ts"
import { notFoundMessage } from "../kit/file-edit/target.ts"
import type { EditResult, MultiEditMetadata as Metadata, Parameters } from "./params.ts"

export async function execute(
  params: z.output<Parameters>,
  ctx: Tool.Context,
): Promise<Tool.Result<Metadata>> {
  // The matchers are loaded on first use, not at every start of the command line.
  const { describeMatch, EMPTY_MESSAGE, IDENTICAL_MESSAGE, replace } = await import("../kit/match/replace.ts")
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
}
