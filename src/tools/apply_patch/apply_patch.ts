import * as Tool from "../../runtime/tool/index.ts"
import { forPatchModels, WRITES } from "../kit/declarations.ts"
import { loadText } from "../kit/load-text.ts"
import { type ApplyPatchMetadata, type Parameters, parameters } from "./params.ts"

/**
 * The `apply_patch` tool: adds, updates, moves and deletes files from one Codex-format patch, whole or
 * not at all.
 *
 * 1. Parse the patch (an empty or malformed patch gets the parser's message, with the line).
 * 2. Resolve every path against the project (absolute paths allowed) and ask `external_directory` for
 *    every file and move target outside it (once per directory).
 * 3. Take the locks of every file (`withFileLocks`, sorted, so patches never deadlock) and, holding them:
 *    a. read every file (BOM split off; the planner sees the text without it); a file the session has
 *       a ledger stamp for must be unchanged since;
 *    b. plan: every hunk of every file is verified before anything is written (`planPatch`);
 *    c. one `edit` ask lists every path (relative to the worktree), with the combined diff and one
 *       entry per file;
 *    d. write in patch order, each write atomic (adds create parent directories, a move writes the
 *       new path then removes the old one); if one fails, every file already written is restored and
 *       every file created is removed (`commit`), and the failure says so; a patch over several files
 *       records every original first, so a crash midway is rolled back at the next start;
 *    e. record the ledger stamp of every written file, forget deleted ones, publish `file.edited`.
 * 4. Shape the result: `Success. Updated the following files:` and one `A`/`M`/`D` line per file, then
 *    any tolerance the planner used (looser matching, re-indentation).
 */
export const ApplyPatchTool = Tool.define<Parameters, ApplyPatchMetadata>(
  "apply_patch",
  () => ({
    description: loadText(import.meta.url, "description.txt"),
    parameters,
    // The work is loaded at the first call, not at every start-up.
    execute: (params, ctx) => import("./execute.ts").then(({ execute }) => execute(params, ctx)),
  }),
  { available: forPatchModels, annotations: WRITES },
)
