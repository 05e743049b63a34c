import * as Tool from "../../runtime/tool/index.ts"
import { forOtherModels, WRITES } from "../kit/declarations.ts"
import { loadText } from "../kit/load-text.ts"
import { type EditMetadata, type Parameters, parameters } from "./params.ts"

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
    // The work is loaded at the first call, not at every start-up.
    execute: (params, ctx) => import("./execute.ts").then(({ execute }) => execute(params, ctx)),
  }),
  { available: forOtherModels, annotations: WRITES },
)
