import { resolve } from "node:path"
import { z } from "zod"
import { commandEnv, type RunOptions } from "../../platform/shell/run/index.ts"
import { sandboxArgv } from "../../platform/shell/sandbox/index.ts"
import { randomBytes } from "../../platform/util/random.ts"
import * as Tool from "../../runtime/tool/index.ts"
import { builtinSchema } from "../../runtime/tool/schema-source.ts"
import { WRITES } from "../kit/declarations.ts"
import { assertExternalDirectory } from "../kit/external-directory.ts"
import {
  DEFAULT_READY_TIMEOUT_MS,
  DEFAULT_TIMEOUT_MS,
  MAX_TIMEOUT_MS,
  readSettings,
} from "../kit/shell-settings.ts"
import { checkDirectory, checkReadiness, checkTimeout, pickShell } from "./check-arguments.ts"
import { clip } from "./clip.ts"
import { foregroundResult } from "./foreground-result.ts"
import type { BashMetadata } from "./metadata.ts"
import { renderDescription } from "./render-description.ts"
import { runForeground } from "./run-foreground.ts"
import { checkSandbox, sandboxPolicy } from "./sandbox.ts"
import { startJob } from "./start-job.ts"

const parameters = builtinSchema("bash", () =>
  z.object({
    command: z.string().min(1).describe("The command to run, as a shell script (one line or several)."),
    description: z
      .string()
      .optional()
      .describe("What the command does, in 5-10 words, e.g. 'Run the unit tests' or 'Install dependencies'."),
    workdir: z
      .string()
      .optional()
      .describe(
        "Directory to run the command in, absolute or relative to the project directory (default: the project directory). Use this instead of `cd <dir> &&`.",
      ),
    timeout: z
      .number()
      .int()
      .positive()
      .optional()
      .describe(
        `Time limit in milliseconds (default ${DEFAULT_TIMEOUT_MS}, at most ${MAX_TIMEOUT_MS} unless configured otherwise). The whole process tree is killed when it passes. Not for background jobs.`,
      ),
    run_in_background: z
      .boolean()
      .optional()
      .describe(
        "Start the command as a background job and return its job id at once, for servers, watchers and other long-running processes. Read its output with bash_output and stop it with bash_kill.",
      ),
    ready_port: z
      .number()
      .int()
      .min(1)
      .max(65535)
      .optional()
      .describe(
        "With run_in_background: wait until this TCP port on 127.0.0.1 (or ::1) accepts connections before returning.",
      ),
    ready_pattern: z
      .string()
      .min(1)
      .optional()
      .describe(
        "With run_in_background: wait until the job's output matches this regular expression (JavaScript syntax), e.g. 'Listening on|ready in'.",
      ),
    ready_timeout: z
      .number()
      .int()
      .positive()
      .optional()
      .describe(
        `With ready_port or ready_pattern: how long to wait for readiness, in milliseconds (default ${DEFAULT_READY_TIMEOUT_MS}).`,
      ),
  }),
)
type Parameters = Tool.SchemaOf<typeof parameters>

export type BashParams = z.infer<Parameters>

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
    async execute(params: BashParams, ctx: Tool.Context): Promise<Tool.Result<BashMetadata>> {
      // 1. Settings and arguments.
      const settings = readSettings(ctx.extra)
      const background = params.run_in_background === true
      const timeoutMs = checkTimeout({ timeout: params.timeout, background, settings })
      const readiness = checkReadiness({
        port: params.ready_port,
        pattern: params.ready_pattern,
        timeout: params.ready_timeout,
        background,
        settings,
      })
      const shell = pickShell(settings)
      const bwrap = checkSandbox(settings)
      const description = params.description?.trim() || ""

      // 2. Working directory.
      const cwd = resolve(settings.directory, params.workdir ?? ".")
      const askedForWorkdir = params.workdir
        ? await assertExternalDirectory(ctx, cwd, { kind: "directory" })
        : false
      checkDirectory(cwd, params.workdir)

      // 3. Permission.
      // Loaded on first use: the scan's parser (tree-sitter, its wasm) and tables are not paid at start-up.
      const { askPermission } = await import("./ask-permission.ts")
      await askPermission({ ctx, command: params.command, description, cwd, settings, askedForWorkdir })

      // 4. Run.
      const marker = randomBytes(12).toString("hex")
      const hookEnv = settings.shellEnv
        ? await settings.shellEnv.shellEnv({ cwd, sessionID: ctx.sessionID, callID: ctx.callID })
        : {}
      const run: RunOptions = {
        command: params.command,
        cwd,
        shell,
        env: commandEnv({ hook: hookEnv, marker }),
        marker,
        limits: settings.limits,
        storeDir: settings.storeDir,
        ...(bwrap
          ? { wrap: (argv: readonly string[]) => sandboxArgv(bwrap, sandboxPolicy(settings, cwd), argv) }
          : {}),
      }
      const title = clip(description || params.command, 100)
      const sandboxed = bwrap !== undefined
      if (background) {
        return startJob({ ctx, run, readiness, settings, description, title, sandboxed })
      }
      const result = await runForeground({ ctx, run, timeoutMs, settings, title, description })

      // 5. Result.
      return foregroundResult({ result, timeoutMs, settings, cwd, sandboxed, title, description })
    },
  }),
  { annotations: WRITES },
)
