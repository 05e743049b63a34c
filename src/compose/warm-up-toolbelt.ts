// A toolbelt that touches nothing of the user's, on which a surface runs its own call path before real
// calls come (surfaces/cli/serve-warm-up.ts, surfaces/mcp-server/stdio-warm-up.ts): V8 runs new code
// unoptimised and optimises what runs often, so code run first here answers the real calls optimised.

import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { monotonicMs } from "../platform/util/clock.ts"
import { createToolbelt, type Toolbelt } from "./toolbelt.ts"

export interface WarmUpReport {
  /** Calls answered. */
  readonly calls: number
  readonly ms: number
  /** Why it stopped early, when something failed. */
  readonly failed?: string
}

/** What a warm-up gets: the throwaway toolbelt, its directory, and `answered()` to count each call. */
export interface WarmUpRun {
  readonly toolbelt: Toolbelt
  readonly dir: string
  answered(): void
}

/**
 * 1. A temp directory of its own (mode 0700) holding a project with `file`, the data dir and a HOME.
 * 2. A toolbelt on it with an in-memory store, the config given empty (no file of the user's or the
 *    project's is read for it), no tool files, plugins or MCP servers.
 * 3. `run` makes the calls, counting each answered one.
 * 4. The toolbelt is closed and the directory removed, whatever failed. A failure is not an error: the
 *    surface then runs cold; the report says how many calls were answered and why it stopped.
 */
export async function withWarmUpToolbelt(
  file: { readonly name: string; readonly text: string },
  run: (warm: WarmUpRun) => Promise<void>,
): Promise<WarmUpReport> {
  const started = monotonicMs()
  let calls = 0
  let failed: string | undefined
  let dir: string | undefined
  try {
    // 1-2.
    dir = await mkdtemp(join(tmpdir(), "toolbelt-warm-up-"))
    await writeFile(join(dir, file.name), file.text)
    const toolbelt = await createToolbelt({
      directory: dir,
      dataDir: join(dir, "data"),
      store: "memory",
      config: {},
      customTools: false,
      mcp: false,
      sweep: false,
      editDiagnostics: false,
      env: { HOME: dir, PATH: process.env.PATH ?? "" },
    })
    try {
      // 3.
      await run({ toolbelt, dir, answered: () => void calls++ })
    } finally {
      await toolbelt.close()
    }
  } catch (error) {
    // 4. Cold, then: nothing here is the user's to hear about.
    failed = (error as Error).message
  } finally {
    if (dir) await rm(dir, { recursive: true, force: true }).catch(() => {})
  }
  return { calls, ms: monotonicMs() - started, ...(failed === undefined ? {} : { failed }) }
}
