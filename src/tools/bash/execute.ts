// The bash tool's work (bash.ts declares the tool): settings and arguments, permission, running the
// command or starting it as a job, and the result. Loaded at the first command.
import { resolve } from "node:path"
import { commandEnv, type RunOptions } from "../../platform/shell/run/index.ts"
import { sandboxArgv } from "../../platform/shell/sandbox/index.ts"
import { randomBytes } from "../../platform/util/random.ts"
import type * as Tool from "../../runtime/tool/index.ts"
import { assertExternalDirectory } from "../kit/external-directory.ts"
import { readSettings } from "../kit/shell-settings.ts"
import { checkDirectory, checkReadiness, checkTimeout, pickShell } from "./check-arguments.ts"
import { clip } from "./clip.ts"
import { foregroundResult } from "./foreground-result.ts"
import type { BashMetadata } from "./metadata.ts"
import type { BashParams } from "./params.ts"
import { runForeground } from "./run-foreground.ts"
import { checkSandbox, sandboxPolicy } from "./sandbox.ts"
import { startJob } from "./start-job.ts"

export async function execute(params: BashParams, ctx: Tool.Context): Promise<Tool.Result<BashMetadata>> {
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
}
