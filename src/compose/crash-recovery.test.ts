import { type ChildProcess, spawn } from "node:child_process"
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { afterEach, describe, expect, it } from "vitest"
import type { Event } from "../runtime/bus/events.ts"
import { bareToolbelt } from "./fixtures/bare-toolbelt.ts"

const crasher = join(import.meta.dirname, "fixtures", "patch-crasher.ts")
const bin = join(import.meta.dirname, "..", "..", "bin", "toolbelt.js")
const dirs: string[] = []
const children: ChildProcess[] = []
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL")
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const FILES = 300
const name = (i: number) => `src/dir${i % 10}/f${String(i).padStart(3, "0")}.txt`
const original = (i: number) =>
  Array.from({ length: 40 }, (_, line) => `file ${i} line ${line} ${"x".repeat(200)}`).join("\n") + "\n"

/**
 * A project of 300 files and one patch over 320 paths, in this order: 280 updates, 10 adds (in new
 * directories), 10 deletes, 10 moves with an update.
 */
function setUp(): { project: string; dataDir: string; patch: string } {
  const root = mkdtempSync(join(tmpdir(), "toolbelt-crash-"))
  dirs.push(root)
  const project = join(root, "project")
  const dataDir = join(root, "data")
  for (let i = 0; i < FILES; i++) {
    mkdirSync(join(project, `src/dir${i % 10}`), { recursive: true })
    writeFileSync(join(project, name(i)), original(i), { mode: i % 7 === 0 ? 0o600 : 0o644 })
  }
  const update = (i: number) => [
    "@@",
    ` file ${i} line 4 ${"x".repeat(200)}`,
    `-file ${i} line 5 ${"x".repeat(200)}`,
    `+patched ${i}`,
    ` file ${i} line 6 ${"x".repeat(200)}`,
  ]
  const lines = ["*** Begin Patch"]
  for (let i = 0; i < 280; i++) lines.push(`*** Update File: ${name(i)}`, ...update(i))
  for (let j = 0; j < 10; j++) lines.push(`*** Add File: added/sub${j}/new${j}.txt`, `+new file ${j}`)
  for (let i = 280; i < 290; i++) lines.push(`*** Delete File: ${name(i)}`)
  for (let i = 290; i < FILES; i++)
    lines.push(`*** Update File: ${name(i)}`, `*** Move to: moved/f${i}.txt`, ...update(i))
  lines.push("*** End Patch")
  const patch = join(root, "patch.txt")
  writeFileSync(patch, `${lines.join("\n")}\n`)
  return { project, dataDir, patch }
}

/** Every entry under `dir` (files with their bytes and mode, directories, anything else by kind). */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>()
  const walk = (relative: string) => {
    for (const entry of readdirSync(join(dir, relative))) {
      const path = relative ? `${relative}/${entry}` : entry
      const stats = lstatSync(join(dir, path))
      if (stats.isDirectory()) {
        out.set(path, "dir")
        walk(path)
      } else if (stats.isFile())
        out.set(path, `${(stats.mode & 0o777).toString(8)} ${readFileSync(join(dir, path), "latin1")}`)
      else out.set(path, "other")
    }
  }
  walk("")
  return out
}

interface Run {
  child: ChildProcess
  lines: string[]
  exited: Promise<NodeJS.Signals | null>
  /** Resolves with the first stdout line equal to `line`. */
  waitFor(line: string): Promise<void>
}

function start(project: string, dataDir: string, patch: string, mode: string): Run {
  const child = spawn(process.execPath, [crasher, project, dataDir, patch, mode], {
    stdio: ["ignore", "pipe", "pipe"],
  })
  children.push(child)
  let stderr = ""
  child.stderr!.on("data", (chunk) => {
    stderr += chunk
  })
  const lines: string[] = []
  const waiters: { line: string; resolve: () => void }[] = []
  createInterface({ input: child.stdout! }).on("line", (line) => {
    lines.push(line)
    for (const waiter of waiters.filter((w) => w.line === line)) waiter.resolve()
  })
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on("exit", (_, signal) => resolve(signal)),
  )
  return {
    child,
    lines,
    exited: exited.then((signal) => {
      if (signal !== "SIGKILL") throw new Error(`the child was not killed (${lines.join(" | ")}): ${stderr}`)
      return signal
    }),
    waitFor: (line) =>
      lines.includes(line) ? Promise.resolve() : new Promise((resolve) => waiters.push({ line, resolve })),
  }
}

/** Kills the child as soon as `moment()` holds, checking as fast as the event loop allows. */
async function killWhen(run: Run, moment: () => boolean): Promise<void> {
  while (!moment()) {
    if (run.child.exitCode !== null || run.lines.includes("finished"))
      throw new Error("the patch finished before the moment under test")
    await new Promise((resolve) => setImmediate(resolve))
  }
  run.child.kill("SIGKILL")
}

/** A new start on the project: what it reports, and the `file.recovered` events it publishes. */
async function restart(project: string, dataDir: string) {
  const toolbelt = await bareToolbelt(project, dataDir)
  const events: Event<"file.recovered">[] = []
  toolbelt.subscribe("file.recovered", (event) => {
    events.push(event)
  })
  await new Promise((resolve) => setTimeout(resolve, 20))
  await toolbelt.close()
  return { report: toolbelt.crashRecovery, events }
}

const patched = (project: string, i: number) =>
  existsSync(join(project, name(i))) && readFileSync(join(project, name(i)), "utf8").includes(`patched ${i}`)

describe("a multi-file apply_patch killed with SIGKILL is rolled back at the next start", () => {
  const moments: [string, string, ((project: string) => boolean) | undefined][] = [
    ["before the first rename", "before-first-rename", undefined],
    ["in the middle of the updates", "parent", (project) => patched(project, 140)],
    [
      "while the added files (and their new directories) are created",
      "parent",
      (project) => existsSync(join(project, "added/sub4")),
    ],
    ["after the last rename, before the record is removed", "after-last-rename", undefined],
  ]
  it.each(moments)(
    "killed %s: every file is back to its original bytes and mode, nothing extra is left, the rollback is reported",
    async (_, mode, moment) => {
      const { project, dataDir, patch } = setUp()
      const before = snapshot(project)
      const run = start(project, dataDir, patch, mode)
      if (moment) await killWhen(run, () => moment(project))
      await run.exited
      // The crash left the patch half-applied (or fully applied, its record still there).
      if (mode !== "before-first-rename") expect(snapshot(project)).not.toEqual(before)

      const { report, events } = await restart(project, dataDir)

      expect(snapshot(project)).toEqual(before)
      expect(report.rolledBack).toHaveLength(1)
      const change = report.rolledBack[0]!
      expect(change).toMatchObject({ label: "apply_patch", pid: run.child.pid, kept: [] })
      if (mode === "after-last-rename") {
        expect(change.restored).toHaveLength(300)
        expect(change.removed).toHaveLength(20)
      }
      expect(events.map((event) => event.properties.change)).toEqual([change])
      // The record is gone: a second start has nothing to do.
      expect((await restart(project, dataDir)).report.rolledBack).toEqual([])
    },
    60_000,
  )

  it("a live writer's record is left alone; once it is killed, the next start rolls back, keeping a file changed since", async () => {
    const { project, dataDir, patch } = setUp()
    const before = snapshot(project)
    const run = start(project, dataDir, patch, "hold")
    await run.waitFor("recorded")

    // The writer lives: a start beside it must not touch its change.
    expect((await restart(project, dataDir)).report.rolledBack).toEqual([])

    run.child.kill("SIGKILL")
    await run.exited
    // Someone edits a file the patch would have changed, after the crash: recovery must not clobber it.
    writeFileSync(join(project, name(3)), "edited by hand\n")
    const { report } = await restart(project, dataDir)
    expect(report.rolledBack).toHaveLength(1)
    expect(report.rolledBack[0]!.kept).toEqual([
      { path: join(project, name(3)), reason: "changed since the interrupted change" },
    ])
    const after = snapshot(project)
    expect(after.get(name(3))).toBe("644 edited by hand\n")
    after.set(name(3), before.get(name(3))!)
    expect(after).toEqual(before)
  }, 60_000)

  it("`toolbelt call` warns on stderr about the change it rolled back", async () => {
    const { project, dataDir, patch } = setUp()
    const before = snapshot(project)
    const run = start(project, dataDir, patch, "before-first-rename")
    await run.exited
    const cli = spawn(
      process.execPath,
      [bin, "call", "glob", '{"pattern":"nothing-matches"}', "--cwd", project, "--json"],
      {
        env: { ...process.env, TOOLBELT_DATA_DIR: dataDir },
        stdio: ["ignore", "pipe", "pipe"],
      },
    )
    let stderr = ""
    cli.stderr.on("data", (chunk) => {
      stderr += chunk
    })
    const code = await new Promise((resolve) => cli.on("exit", resolve))
    expect(code).toBe(0)
    expect(stderr).toMatch(
      new RegExp(
        `warning: an interrupted apply_patch change \\(process ${run.child.pid}, started .*\\) was rolled back`,
      ),
    )
    expect(snapshot(project)).toEqual(before)
  }, 60_000)
})
