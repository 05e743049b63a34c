import { spawn } from "node:child_process"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { findByCommandLine } from "./find-processes.ts"
import { runOptions } from "./fixtures/run-options.ts"
import { until } from "./fixtures/until.ts"
import { containment, onReaperStatus, parseStatus, type ReapedExit } from "./reaper.ts"
import { RunningCommand, type RunOptions, runCommand } from "./run.ts"

const HAS_REAPER = containment().kind === "subreaper"

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolbelt-reaper-"))
})
afterEach(() => rm(dir, { recursive: true, force: true }))

let n = 0
const options = (command: string, extra: Partial<RunOptions> = {}): RunOptions =>
  runOptions(dir, command, extra)

/** A sleep whose command line no other process has: `sleep 1000.<unique>`. */
function token(): string {
  return `1000.${process.pid}${++n}${Math.floor(Math.random() * 1e6)}`
}

const running = findByCommandLine

/** Daemons that leave the session, the group and the environment marker, each its own way. */
const DAEMONS: readonly [string, (t: string) => string][] = [
  ["setsid -f env -i", (t) => `setsid -f env -i sleep ${t}`],
  ["a subshell's setsid sh that backgrounds", (t) => `(setsid env -i sh -c 'sleep ${t} &' &)`],
  ["nohup setsid env -i, output to /dev/null", (t) => `nohup setsid env -i sleep ${t} >/dev/null 2>&1 &`],
  ["a double fork", (t) => `setsid env -i sh -c '(sh -c "sleep ${t} &" &) &' &`],
  [
    "a daemon that closes every fd",
    (t) => `setsid -f env -i sh -c 'exec 0<&- 1>&- 2>&- 3>&- 4>&- 5>&-; exec sleep ${t}'`,
  ],
]

describe.skipIf(!HAS_REAPER)("the child subreaper", () => {
  it("says which containment is active", () => {
    expect(containment()).toMatchObject({ kind: "subreaper", detail: expect.stringContaining("subreaper") })
    expect(containment({ env: { ...process.env, TOOLBELT_REAPER: "0" }, refresh: true }).kind).toBe("scan")
    containment({ refresh: true })
  })

  for (const [name, daemon] of DAEMONS) {
    for (const end of ["exit", "timeout", "abort"] as const) {
      it(`leaves nothing behind: ${name}, on ${end}`, async () => {
        const t = token()
        // On exit, the command ends only once the daemon's sleep has exec'd: killed before then, the daemon is a
        // process between fork and exec (or a zombie) whose command line may not name it yet.
        const waitForSleep = `for i in $(seq 200); do ps -eo args | grep -q "^sleep ${t}" && break; sleep 0.05; done`
        const tail = end === "exit" ? `${waitForSleep}; echo started` : "echo started; sleep 30"
        const controller = new AbortController()
        const command = new RunningCommand(
          options(`${daemon(t)}\n${tail}`, {
            killGraceMs: 300,
            ...(end === "timeout" ? { timeoutMs: 1500 } : {}),
            ...(end === "abort" ? { signal: controller.signal } : {}),
          }),
        )
        if (end === "abort") {
          expect(await until(() => running(t).length > 0 && command.capture.tail().includes("started"))).toBe(
            true,
          )
          controller.abort()
        }
        const result = await command.done
        expect(result.reason).toBe(end)
        expect(result.output.text).toContain("started")
        expect(await until(() => running(t).length === 0, 2000)).toBe(true)
        // The daemon is named among what was killed, not hidden.
        expect(result.killed.some((info) => info.command.includes(t))).toBe(true)
      })
    }
  }

  it("keeps exit codes and signals as the shell's own", async () => {
    expect(await runCommand(options("exit 42"))).toMatchObject({ exitCode: 42, signal: null, reason: "exit" })
    expect(await runCommand(options("kill -TERM $$"))).toMatchObject({ exitCode: null, signal: "SIGTERM" })
    const killed = await runCommand(options("trap '' TERM; sleep 30", { timeoutMs: 200, killGraceMs: 200 }))
    expect(killed).toMatchObject({ reason: "timeout", signal: "SIGKILL" })
    // The reaper itself is toolbelt's, never reported as the command's process.
    expect(killed.killed.some((info) => info.command.includes("perl"))).toBe(false)
  })

  it("kills the command's daemons when toolbelt itself is killed with SIGKILL", async () => {
    const t = token()
    const runModule = fileURLToPath(new URL("./index.ts", import.meta.url))
    const script = join(dir, "parent.ts")
    await writeFile(
      script,
      `import { chooseShell, commandEnv, RunningCommand } from ${JSON.stringify(runModule)}
const marker = "sigkill-" + process.pid
const command = new RunningCommand({ command: "setsid -f env -i sleep ${t}; echo started; sleep 100",
  cwd: ${JSON.stringify(dir)}, shell: chooseShell(), env: commandEnv({ marker }), marker,
  limits: { maxLines: 2000, maxBytes: 51200 }, storeDir: ${JSON.stringify(join(dir, "store"))} })
const timer = setInterval(() => {
  if (!command.capture.tail().includes("started")) return
  clearInterval(timer)
  process.kill(process.pid, "SIGKILL")
}, 20)
`,
    )
    const child = spawn(process.execPath, [script], { stdio: "ignore" })
    await new Promise((resolve) => child.once("exit", resolve))
    expect(await until(() => running(t).length === 0, 3000)).toBe(true)
  })
})

describe("parseStatus", () => {
  it("reads the reaper's status line", () => {
    expect(parseStatus("E0\n")).toEqual({ code: 0, signal: null })
    expect(parseStatus("E130")).toEqual({ code: 130, signal: null })
    expect(parseStatus("S9")).toEqual({ code: null, signal: "SIGKILL" })
    expect(parseStatus("S15")).toEqual({ code: null, signal: "SIGTERM" })
    expect(parseStatus("hello")).toBeUndefined()
  })
})

describe("onReaperStatus", () => {
  it("reports the status line from fd 3 once it is whole, even when it arrives in pieces", async () => {
    // A stand-in for the reaper: writes "S1" and, a moment later, "5\n" to fd 3, then exits 0.
    const child = spawn(
      process.execPath,
      [
        "-e",
        `const fs = require("node:fs"); fs.writeSync(3, "S1"); setTimeout(() => fs.writeSync(3, "5\\n"), 50)`,
      ],
      { stdio: ["ignore", "ignore", "ignore", "pipe"] },
    )
    const reported: ReapedExit[] = []
    onReaperStatus(child, (exit) => reported.push(exit))
    await new Promise((resolve) => child.once("close", resolve))
    expect(reported[0]).toEqual({ code: null, signal: "SIGTERM" })
  })

  it("reports nothing for a child without a status pipe", async () => {
    const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" })
    const reported: ReapedExit[] = []
    onReaperStatus(child, (exit) => reported.push(exit))
    await new Promise((resolve) => child.once("close", resolve))
    expect(reported).toEqual([])
  })
})
