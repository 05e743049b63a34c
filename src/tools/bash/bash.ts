import * as Tool from "../../runtime/tool/index.ts"
import { WRITES } from "../kit/declarations.ts"
import type { BashMetadata } from "./metadata.ts"
import { type BashParams, parameters } from "./params.ts"
import { renderDescription } from "./render-description.ts"

/**
 * The `bash` tool: runs one command with its whole process tree under control.
 *
 * 1. Read the settings and check the arguments (check-arguments.ts, sandbox.ts): the timeout (a bad or
 *    too large value is an error), the readiness options, the shell, the sandbox (enabled but
 *    unavailable: refuse, never run bare).
 * 2. Resolve `workdir` (default: the project); outside the project, ask `external_directory` for it.
 * 3. Scan the command (ask-permission.ts): ask `external_directory` for the other directories outside
 *    the project it touches, then one `bash` ask with every command's pattern and "always" prefix. A
 *    command the scan cannot parse, or cannot see through, is asked for whole: never allowed silently.
 *    Patterns the rules cannot check (a command word computed at run time) go in `metadata.unchecked`
 *    with why, so the permission engine gives them the strictest outcome the rules could give.
 * 4. Run it (run-foreground.ts, over RunningCommand), streaming the tail of the output as progress; or
 *    start it as a background job and wait for readiness if asked (start-job.ts, which also shapes
 *    that result).
 * 5. Shape the result (foreground-result.ts): the bounded output, then what happened (exit code,
 *    timeout, abort, prompt, processes killed) in a `<shell_metadata>` block; metadata for UIs
 *    (`output`, `exit`, ...).
 */
export const BashTool = Tool.define(
  "bash",
  () => ({
    description: renderDescription(),
    parameters,
    // The work (settings, the command's scan, running it) is loaded at the first command.
    execute: (params: BashParams, ctx: Tool.Context): Promise<Tool.Result<BashMetadata>> =>
      import("./execute.ts").then(({ execute }) => execute(params, ctx)),
  }),
  { annotations: WRITES },
)
