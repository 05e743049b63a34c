import * as Tool from "../../runtime/tool/index.ts"
import { forOtherModels } from "../kit/declarations.ts"
import { loadText } from "../kit/load-text.ts"
import { type Parameters, parameters, type WriteMetadata } from "./params.ts"

/**
 * Writes a whole file: atomically, serialised with every other writer of the same file, and, for an
 * existing file, only when this session has seen its current content.
 *
 * 1. Resolve the path against the project; guard paths outside it (`external_directory`, kind file).
 * 2. Under the file's lock (which other toolbelt processes honour too): refuse directories and special
 *    files; for an existing file check the read ledger (unless `requireRead` is off); diff old → new; ask
 *    `edit` with the diff; refuse if a program outside toolbelt changed the file meanwhile; write
 *    atomically (BOM kept if either side had one, mode kept); record the new stamp so this session may
 *    write again.
 * 3. Publish `file.edited`; return the trimmed diff, its counts and whether the file existed.
 */
export const WriteTool = Tool.define<Parameters, WriteMetadata>(
  "write",
  () => ({
    description: loadText(import.meta.url, "description.txt"),
    parameters,
    // The work is loaded at the first call, not at every start-up.
    execute: (params, ctx) => import("./execute.ts").then(({ execute }) => execute(params, ctx)),
  }),
  { available: forOtherModels, annotations: { destructive: true } },
)
