// Calls killed with SIGKILL mid-run: each leaves a record, the next start closes it as interrupted,
// and the session hears about it once (bus event, stderr warning, `metadata.interrupted_calls`).
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { createInterface } from "node:readline"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { internals } from "../src/compose/internals.ts"
import { createToolbelt } from "../src/compose/toolbelt.ts"
import { PROCESS_GONE } from "../src/platform/store/journal.ts"
import type { ToolPart } from "../src/platform/store/part.ts"
import { openStore } from "../src/platform/store/store.ts"

const root = resolve(import.meta.dirname, "..")
const bin = join(root, "bin", "toolbelt.js")
let project: string
let home: string
let dataDir: string
const leftovers: number[] = []

beforeEach(async () => {
  project = await mkdtemp(join(tmpdir(), "toolbelt-crash-"))
  home = await mkdtemp(join(tmpdir(), "toolbelt-crash-home-"))
  dataDir = join(home, "data")
})

afterEach(async () => {
  // The killed call's shell led its own process group: end it (by its id) so no sleep outlives the test.
  for (const pid of leftovers.splice(0)) {
    try {
      process.kill(-pid, "SIGKILL")
    } catch {}
  }
  await rm(project, { recursive: true, force: true })
  await rm(home, { recursive: true, force: true })
})

const env = () => ({
  PATH: process.env.PATH,
  HOME: home,
  XDG_CONFIG_HOME: join(home, ".config"),
  TOOLBELT_DATA_DIR: dataDir,
})

function cli(args: string[]) {
  return spawnSync(process.execPath, [bin, ...args], {
    cwd: project,
    encoding: "utf8",
    env: env(),
    timeout: 30_000,
  })
}

async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (await check()) return
    await new Promise((done) => setTimeout(done, 50))
  }
  throw new Error("timed out waiting")
}

async function kill(child: ChildProcess): Promise<void> {
  const exited = new Promise((done) => child.on("exit", done))
  child.kill("SIGKILL")
  await exited
}

/** Starts `toolbelt call bash` on a command that sleeps, waits until it runs, and SIGKILLs the CLI. */
async function killSlowBash(session: string): Promise<void> {
  const pidFile = join(project, "shell.pid")
  const command = `echo $$ > ${JSON.stringify(pidFile)}; sleep 30`
  const child = spawn(
    process.execPath,
    [bin, "call", "bash", JSON.stringify({ command, description: "sleep" }), "--session", session, "--json"],
    { cwd: project, env: env(), stdio: "ignore" },
  )
  await until(async () => existsSync(pidFile) && (await readFile(pidFile, "utf8")).trim() !== "")
  leftovers.push(Number((await readFile(pidFile, "utf8")).trim()))
  await kill(child)
}

function storedParts(session: string): ToolPart[] {
  const store = openStore({ dataDir })
  try {
    return store.parts.list(session)
  } finally {
    store.close()
  }
}

describe("a call killed with SIGKILL", () => {
  it("is recorded before it runs, closed as interrupted at the next start, and reported to its session once", async () => {
    await killSlowBash("ses_killed")
    // The record was durable before the command ran: the part is there, still running.
    const [open] = storedParts("ses_killed")
    expect(open?.tool).toBe("bash")
    expect(open?.state.status).toBe("running")

    await writeFile(join(project, "a.txt"), "hello\n")
    // Another session's call recovers the killed call but does not report it: it is not theirs.
    const other = cli(["call", "read", '{"filePath":"a.txt"}', "--session", "ses_other", "--json"])
    expect(other.status).toBe(0)
    expect(other.stderr).not.toContain("warning")
    expect(JSON.parse(other.stdout).metadata.interrupted_calls).toBeUndefined()
    const [closed] = storedParts("ses_killed")
    expect(closed?.state.status).toBe("error")
    if (closed?.state.status !== "error") return
    expect(closed.state.error).toBe(PROCESS_GONE)
    expect(closed.state.metadata?.interrupted).toBe(true)

    // The session's next call names it, on stderr and in its one JSON object.
    const next = cli(["call", "read", '{"filePath":"a.txt"}', "--session", "ses_killed", "--json"])
    expect(next.status).toBe(0)
    const result = JSON.parse(next.stdout)
    expect(result.status).toBe("completed")
    expect(result.output).toContain("hello")
    expect(result.metadata.interrupted_calls).toEqual([
      expect.objectContaining({ callID: open!.callID, tool: "bash", error: PROCESS_GONE }),
    ])
    expect(next.stderr).toContain("warning: a call of this session never finished")
    expect(next.stderr).toContain(open!.callID)

    // Once: the call after that is quiet, and an error result carries the report too when it has one.
    const after = cli(["call", "read", '{"filePath":"missing.txt"}', "--session", "ses_killed", "--json"])
    expect(after.status).toBe(1)
    expect(JSON.parse(after.stdout)).toEqual({ status: "error", error: expect.any(String) })
    expect(after.stderr).not.toContain("warning")
  }, 60_000)

  it("is published as a part update to the session's first call after the start", async () => {
    await killSlowBash("ses_bus")
    const toolbelt = await createToolbelt({ directory: project, dataDir, sweep: false })
    try {
      expect(toolbelt.recovered.interrupted.map((part) => part.tool)).toEqual(["bash"])
      const seen: ToolPart[] = []
      internals(toolbelt).bus.subscribeSession("ses_bus", (event) => {
        if (event.type === "message.part.updated") seen.push(event.properties.part)
      })
      await writeFile(join(project, "a.txt"), "x\n")
      const result = await toolbelt.call({ tool: "read", input: { filePath: "a.txt" }, sessionID: "ses_bus" })
      await until(() => seen.some((part) => part.tool === "read" && part.state.status === "completed"))
      expect(seen[0]?.tool).toBe("bash")
      expect(seen[0]?.state.status).toBe("error")
      expect(result.metadata.interrupted_calls).toHaveLength(1)
    } finally {
      await toolbelt.close()
    }
  }, 60_000)

  it("leaves a record of a read-only call that does not wait for its record (MCP), once it has run", async () => {
    const child = spawn(
      process.execPath,
      [join(root, "test", "fixtures", "slow-read-only.ts"), project, dataDir, "ses_mcp"],
      { stdio: ["ignore", "pipe", "inherit"] },
    )
    let callID = ""
    for await (const line of createInterface({ input: child.stdout! })) {
      if (line.startsWith("started ")) {
        callID = line.slice("started ".length)
        break
      }
    }
    await kill(child)
    const toolbelt = await createToolbelt({ directory: project, dataDir, builtins: false, sweep: false })
    try {
      expect(toolbelt.recovered.interrupted.map((part) => part.callID)).toEqual([callID])
    } finally {
      await toolbelt.close()
    }
  }, 60_000)
})

describe("a large input", () => {
  it("leaves the journal small: a 50 MB write, completed and killed", async () => {
    const content = "x".repeat(50 * 1024 * 1024)
    const done = spawnSync(process.execPath, [bin, "call", "write", "-", "--json"], {
      cwd: project,
      env: env(),
      input: JSON.stringify({ filePath: "big.txt", content }),
      encoding: "utf8",
      maxBuffer: 1 << 20,
      timeout: 60_000,
    })
    expect(done.status).toBe(0)
    expect((await stat(join(project, "big.txt"))).size).toBe(content.length)
    const db = join(dataDir, "toolbelt.db")
    const size = async () =>
      (await stat(db)).size + (existsSync(`${db}-wal`) ? (await stat(`${db}-wal`)).size : 0)
    expect(await size()).toBeLessThan(1024 * 1024)

    // The stored input says what it was: its head, its size and its sha256.
    const [part] = storedParts(storedSessions()[0]!)
    const stored = part?.state.input.content as string
    expect(stored.startsWith("x".repeat(1024))).toBe(true)
    expect(stored).toContain(`${content.length} bytes`)
    expect(stored).toMatch(/sha256 [0-9a-f]{64}/)

    // Three more, each SIGKILLed as soon as its call is in the journal.
    for (let round = 0; round < 3; round++) {
      const child = spawn(
        process.execPath,
        [bin, "call", "write", "-", "--session", `ses_k${round}`, "--json"],
        {
          cwd: project,
          env: env(),
          stdio: ["pipe", "ignore", "ignore"],
        },
      )
      child.stdin!.end(JSON.stringify({ filePath: `big${round}.txt`, content }))
      await until(() => storedParts(`ses_k${round}`).length > 0)
      await kill(child)
    }
    expect(await size()).toBeLessThan(1024 * 1024)
  }, 120_000)
})

function storedSessions(): string[] {
  const store = openStore({ dataDir })
  try {
    return store.db
      .prepare("SELECT DISTINCT session_id FROM part")
      .all<{ session_id: string }>()
      .map((row) => row.session_id)
  } finally {
    store.close()
  }
}
