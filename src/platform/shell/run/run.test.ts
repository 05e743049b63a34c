import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { findByCommandLine } from "./find-processes.ts"
import { gone } from "./fixtures/process-gone.ts"
import { runOptions } from "./fixtures/run-options.ts"
import { RunningCommand, type RunOptions, runCommand, SpawnError } from "./run.ts"

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolbelt-run-"))
})
afterEach(() => rm(dir, { recursive: true, force: true }))

const options = (command: string, extra: Partial<RunOptions> = {}): RunOptions =>
  runOptions(dir, command, extra)

let uniques = 0
/** A sleep duration no other process has, so /proc finds exactly this test's sleep. */
function unique(): string {
  return `600.${process.pid}${++uniques}`
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10))
}

/** A SIGKILL sent by a process that has exited since may still be on its way: allow it a moment. */
async function goneSoon(pid: number): Promise<boolean> {
  for (let waited = 0; waited < 2000; waited += 20) {
    if (gone(pid)) return true
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return gone(pid)
}

describe("RunningCommand", () => {
  it("reports the exit code and the output", async () => {
    const result = await runCommand(options("echo hi; exit 7"))
    expect(result).toMatchObject({ exitCode: 7, signal: null, reason: "exit", leftovers: [], killed: [] })
    expect(result.output.text).toBe("hi\n")
  })

  // Each test waits for its processes to exist (events, not sleeps), so a loaded machine cannot make
  // it kill a tree that has not started yet; a wait that never ends is caught by the test timeout.
  it("SIGKILLs what ignores SIGTERM after the grace period", async () => {
    const sleep = unique()
    const command = new RunningCommand(
      options(`trap '' TERM; sleep ${sleep} & wait`, { timeoutMs: 600_000, killGraceMs: 300 }),
    )
    await until(() => findByCommandLine(`sleep\0${sleep}\0`).length === 1)
    const stopping = Date.now()
    await command.stop("timeout")
    const result = await command.done
    expect(result.reason).toBe("timeout")
    // The grace period was waited out: TERM was ignored, so only the KILL after it ended the tree.
    expect(Date.now() - stopping).toBeGreaterThanOrEqual(300)
    for (const info of result.killed) expect(gone(info.pid)).toBe(true)
    expect(result.killed.map((info) => info.command)).toEqual(expect.arrayContaining([`sleep ${sleep}`]))
  })

  it("stop() kills the tree once and says what it killed", async () => {
    const [a, b] = [unique(), unique()]
    const command = new RunningCommand(options(`sleep ${a} & sleep ${b} & wait`))
    await until(
      () => findByCommandLine(`sleep\0${a}\0`).length + findByCommandLine(`sleep\0${b}\0`).length === 2,
    )
    const [first, second] = await Promise.all([command.stop(), command.stop()])
    expect(first).toBe(second)
    expect(first.killed.map((info) => info.command)).toEqual(
      expect.arrayContaining([`sleep ${a}`, `sleep ${b}`]),
    )
    const result = await command.done
    expect(result.reason).toBe("killed")
    for (const info of first.killed) expect(gone(info.pid)).toBe(true)
  })

  it("does not wait for a pipe held by a process it cannot see", async () => {
    // env -i drops the run marker and setsid leaves the session: nothing links this sleep to the command.
    // It holds the output pipe for ten minutes, far past the test timeout: the run ending proves it did
    // not wait (without the subreaper; with it, the sleep is found and killed instead).
    const result = await runCommand(
      options("(setsid env -i sleep 600 & echo pid:$!); echo done", { reaper: false }),
    )
    expect(result.output.text).toContain("done")
    const pid = Number(/pid:(\d+)/.exec(result.output.text)?.[1])
    try {
      process.kill(pid, "SIGKILL")
    } catch {}
  })

  it("fails with a SpawnError naming the program and what to check when the command cannot start", async () => {
    const missing = join(dir, "missing")
    const started = runCommand(options("true", { cwd: missing }))
    await expect(started).rejects.toBeInstanceOf(SpawnError)
    await expect(started).rejects.toThrow(
      new RegExp(
        `^Could not start \\S+: spawn \\S+ ENOENT\\. Check that \\S+ exists and can be run, and that the working directory ${missing} exists\\.$`,
      ),
    )
  })

  it("pauses reading while the spool is behind, without losing output", async () => {
    const result = await runCommand(options("head -c 30000000 /dev/zero | tr '\\0' 'b' | fold -w 1000"))
    expect(result.output.totalBytes).toBe(30_000_000 + 29_999)
    expect(readFileSync(result.output.outputPath!).length).toBe(30_029_999)
  })
})

describe("when this process ends", () => {
  const runModule = fileURLToPath(new URL("./index.ts", import.meta.url))

  /** Runs a Node process that starts a command tree, prints its pids, then ends the way `end` says. */
  async function orphanCheck(end: string): Promise<number[]> {
    const script = join(dir, "parent.ts")
    await writeFile(
      script,
      `import { chooseShell, commandEnv, RunningCommand } from ${JSON.stringify(runModule)}
const marker = "exit-test-" + process.pid
const command = new RunningCommand({ command: "sleep 100 & echo pid:$!; (setsid sleep 300 & echo pid:$!); echo pid:$$; sleep 100",
  cwd: ${JSON.stringify(dir)}, shell: chooseShell(), env: commandEnv({ marker }), marker,
  limits: { maxLines: 2000, maxBytes: 51200 }, storeDir: ${JSON.stringify(join(dir, "store"))} })
const timer = setInterval(() => {
  const pids = command.capture.tail().match(/pid:\\d+/g) ?? []
  if (pids.length < 3) return
  clearInterval(timer)
  console.log(pids.join(" "))
  ${end}
}, 20)
`,
    )
    const child = spawn(process.execPath, [script], { stdio: ["ignore", "pipe", "inherit"] })
    let text = ""
    child.stdout.on("data", (chunk: Buffer) => {
      text += chunk.toString()
    })
    await new Promise((resolve) => child.once("close", resolve))
    return [...text.matchAll(/pid:(\d+)/g)].map((match) => Number(match[1]))
  }

  it("kills running commands on exit", async () => {
    const pids = await orphanCheck("process.exit(0)")
    expect(pids).toHaveLength(3)
    for (const pid of pids) expect(await goneSoon(pid)).toBe(true)
  })

  it("kills running commands on SIGTERM, and still terminates", async () => {
    const pids = await orphanCheck('process.kill(process.pid, "SIGTERM")')
    expect(pids).toHaveLength(3)
    for (const pid of pids) expect(await goneSoon(pid)).toBe(true)
  })
})
