// The edit tool's work (edit.ts declares the tool): the replacement through the matchers, under the
// file's lock, and the result. Loaded at the first edit.
import type { z } from "zod"
import * as Tool from "../../runtime/tool/index.ts"
import { withDiagnostics } from "../kit/diagnostics/edit-diagnostics.ts"
import { diffMetadata, editFile } from "../kit/file-edit/edit-file.ts"
import { notFoundHint } from "../kit/file-edit/encode-edit.ts"
import { notFoundMessage } from "../kit/file-edit/target.ts"
import type { EditMetadata as Metadata, Parameters } from "./params.ts"

export async function execute(
  params: z.output<Parameters>,
  ctx: Tool.Context,
): Promise<Tool.Result<Metadata>> {
  // The matchers are loaded on first use, not at every start of the command line.
  const { describeMatch, EMPTY_MESSAGE, IDENTICAL_MESSAGE, replace } = await import("../kit/match/replace.ts")
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
}
