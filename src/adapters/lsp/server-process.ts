// One language server's process tree: started so that nothing in it outlives toolbelt, read and written
// through its stdio, and killed whole.

import { type ChildProcess, spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import type { Readable, Writable } from "node:stream"
import { trackLive } from "../../platform/shell/run/cleanup.ts"
import { RUN_MARKER } from "../../platform/shell/run/env.ts"
import { containment, onReaperStatus, reaperArgv } from "../../platform/shell/run/reaper.ts"
import { killTree, killTreeNow, ProcessTree } from "../../platform/shell/run/tree.ts"

/** How the server's own process ended. */
export interface ProcessExit {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  /** Set when it could not be started at all (the program is missing or not executable). */
  readonly error?: string
}

/** What stderr keeps for a crash report. */
const STDERR_TAIL = 2000

/**
 * A server process and everything it starts.
 * 1. Under the child subreaper where Linux has one (see platform/shell/run/reaper.ts): every descendant
 *    stays below it, and it kills them all when toolbelt dies, even by SIGKILL. Elsewhere in its own
 *    process group, found by group and environment marker. Either way it is killed on toolbelt's exit.
 * 2. Its stdin and stdout carry the protocol; the end of stderr is kept for a crash report.
 * 3. It does not keep toolbelt's event loop alive by itself (a caller waiting on it does).
 */
export class ServerProcess {
  readonly pid: number
  readonly stdin: Writable
  readonly stdout: Readable
  /** Resolves when the server itself has exited (its descendants may still be running). */
  readonly exited: Promise<ProcessExit>
  readonly #tree: ProcessTree
  #stderr = ""
  #stopping: Promise<void> | undefined
  readonly #untrack: () => void

  constructor({
    argv,
    cwd,
    env,
  }: {
    argv: readonly string[]
    cwd: string
    env: Readonly<Record<string, string | undefined>>
  }) {
    const marker = `lsp-${randomUUID()}`
    const contained = containment()
    const reaper = contained.kind === "subreaper"
    const [file, ...args] = reaper ? reaperArgv(contained.perl, argv) : argv
    const child = spawn(file!, args, {
      cwd,
      env: { ...definedOnly(env), [RUN_MARKER]: marker },
      detached: true,
      stdio: reaper ? ["pipe", "pipe", "pipe", "pipe"] : ["pipe", "pipe", "pipe"],
    })
    this.pid = child.pid ?? -1
    this.stdin = child.stdin!
    this.stdout = child.stdout!
    this.stdin.on("error", () => {})
    child.stderr!.on("data", (chunk: Buffer) => {
      this.#stderr = (this.#stderr + chunk.toString("utf8")).slice(-STDERR_TAIL)
    })
    this.#tree = new ProcessTree({ root: this.pid, marker, reaper })
    this.exited = serverExit(child, argv[0] ?? "")
    this.#untrack = this.pid > 0 ? trackLive({ stopNow: () => this.stopNow() }) : () => {}
    child.unref()
    for (const stream of [child.stdout, child.stderr, child.stdio[3]] as (Readable & {
      unref?: () => void
    })[])
      stream?.unref?.()
    void this.exited.then(() => {
      // The server is gone; what it left behind (workers) goes too.
      if (!this.#stopping) void this.stop()
    })
  }

  /** The last lines the server wrote to stderr. */
  get stderrTail(): string {
    return this.#stderr.trim()
  }

  /** Kills the whole tree (SIGTERM, SIGKILL after `graceMs`); resolves when nothing of it runs. */
  stop(graceMs = 1000): Promise<void> {
    this.#stopping ??= (async () => {
      if (this.pid > 0) await killTree(this.#tree, { graceMs })
      this.#untrack()
    })()
    return this.#stopping
  }

  /** SIGKILLs the tree synchronously (toolbelt is exiting). */
  stopNow(): void {
    if (this.pid > 0) killTreeNow(this.#tree)
  }
}

/** The server's own end: the subreaper's status line for it, or the process's exit, or a failed spawn. */
function serverExit(child: ChildProcess, program: string): Promise<ProcessExit> {
  return new Promise((resolve) => {
    child.once("error", (error) =>
      resolve({ code: null, signal: null, error: `${program}: ${error.message}` }),
    )
    child.once("exit", (code, signal) => resolve({ code, signal }))
    onReaperStatus(child, resolve)
  })
}

function definedOnly(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value
  return out
}
