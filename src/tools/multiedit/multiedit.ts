import * as Tool from "../../runtime/tool/index.ts"
import { forOtherModels, WRITES } from "../kit/declarations.ts"
import { loadText } from "../kit/load-text.ts"
import { type MultiEditMetadata, type Parameters, parameters } from "./params.ts"

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
    // The work is loaded at the first call, not at every start-up.
    execute: (params, ctx) => import("./execute.ts").then(({ execute }) => execute(params, ctx)),
  }),
  { available: forOtherModels, annotations: WRITES },
)
