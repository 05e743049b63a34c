// Many `toolbelt call` processes changing one file at once: what each reports must be what the file
// holds afterwards. Every process is a real one, started as a user or a script starts it.
// TOOLBELT_PARALLEL_EDITS=200 runs the edit cases with 200 processes instead of 50.
import { spawn } from "node:child_process"
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { createToolbelt } from "../src/compose/toolbelt.ts"
import { runCliAsync } from "./fixtures/cli.ts"

const holderScript = join(import.meta.dirname, "..", "src", "platform", "fs", "fixtures", "lock-holder.ts")

const PROCESSES = Number(process.env.TOOLBELT_PARALLEL_EDITS) || 50
/** Generous: on 2 busy cores, starting 50 Node processes alone takes tens of seconds. */
const TIMEOUT = 600_000

let root: string
let project: string
let dataDir: string
let lockDir: string

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "toolbelt-parallel-"))
  project = join(root, "project")
  dataDir = join(root, "data")
  lockDir = join(root, "locks")
  await mkdir(project)
})

afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

interface Outcome {
  readonly status: "completed" | "error"
  readonly error?: string
  readonly exitCode: number | null
}

/** Runs `toolbelt call <tool> <input> --json` as its own process. */
async function call(tool: string, input: unknown, session?: string, lockWaitMs = 300_000): Promise<Outcome> {
  const args = ["call", tool, JSON.stringify(input), "--cwd", project, "--json"]
  if (session) args.push("--session", session)
  const { status, stdout, stderr } = await runCliAsync(args, {
    cwd: process.cwd(),
    home: root,
    env: {
      TOOLBELT_DATA_DIR: dataDir,
      TOOLBELT_LOCK_DIR: lockDir,
      // By default far beyond what the queue of processes needs: these tests are about lost edits.
      TOOLBELT_LOCK_WAIT_MS: String(lockWaitMs),
    },
    timeout: TIMEOUT,
  })
  try {
    return { ...(JSON.parse(stdout) as Omit<Outcome, "exitCode">), exitCode: status }
  } catch {
    throw new Error(`no JSON from toolbelt call ${tool}: ${stdout}${stderr}`)
  }
}

/** Reads the file once in each session, in this process, through the same store the CLI uses. */
async function readInSessions(file: string, sessions: string[]): Promise<void> {
  const toolbelt = await createToolbelt({ directory: project, dataDir, sweep: false })
  try {
    for (const sessionID of sessions) {
      const result = await toolbelt.call({ tool: "read", input: { filePath: file }, sessionID })
      expect(result.status).toBe("completed")
    }
  } finally {
    await toolbelt.close()
  }
}

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i} as it was`)
const edited = (i: number) => `line ${i} as edited by process ${i}`

describe(`${PROCESSES} toolbelt processes editing one file at once`, () => {
  it(
    "every edit reported done is in the file",
    async () => {
      const file = join(project, "shared.txt")
      await writeFile(file, `${lines(PROCESSES).join("\n")}\n`)
      const outcomes = await Promise.all(
        lines(PROCESSES).map((line, i) =>
          call("edit", { filePath: file, oldString: line, newString: edited(i) }),
        ),
      )
      const content = await readFile(file, "utf8")
      const missing = outcomes.flatMap((outcome, i) =>
        outcome.status === "completed" && !content.includes(`${edited(i)}\n`) ? [i] : [],
      )
      expect(missing).toEqual([])
      // Nothing makes an edit fail here: each one's line is there whatever the others did.
      expect(outcomes.filter((outcome) => outcome.status !== "completed")).toEqual([])
      expect(await readdir(lockDir)).toEqual([])
    },
    TIMEOUT,
  )

  it(
    "each having read the file in its own session: every success is in the file, the rest are refused as stale",
    async () => {
      const file = join(project, "shared.txt")
      await writeFile(file, `${lines(PROCESSES).join("\n")}\n`)
      const sessions = lines(PROCESSES).map((_, i) => `ses_reader_${i}`)
      await readInSessions(file, sessions)
      const outcomes = await Promise.all(
        lines(PROCESSES).map((line, i) =>
          call("edit", { filePath: file, oldString: line, newString: edited(i) }, sessions[i]),
        ),
      )
      const content = await readFile(file, "utf8")
      const succeeded = outcomes.flatMap((outcome, i) => (outcome.status === "completed" ? [i] : []))
      // All read the same version: the first to take the lock changes it, every later one sees a change.
      expect(succeeded).toHaveLength(1)
      for (const i of succeeded) expect(content).toContain(`${edited(i)}\n`)
      for (const outcome of outcomes.filter((outcome) => outcome.status === "error"))
        expect(outcome.error).toMatch(
          /^The file .*shared\.txt has changed since you last read it \(at .*\): another tool call or something outside this session modified it\. Read the file again, then make the edit against its current content\.$/,
        )
    },
    TIMEOUT,
  )
})

/**
 * One `write` process per session (undefined: a fresh one) at once: exactly one lands, whole, and every
 * other is refused with `refusal`, never with a word about a permission nobody was asked for.
 */
async function writeAtOnce(file: string, sessions: (string | undefined)[], refusal: RegExp): Promise<void> {
  const outcomes = await Promise.all(
    sessions.map((session, i) => call("write", { filePath: file, content: `writer ${i}\n` }, session)),
  )
  const winners = outcomes.flatMap((outcome, i) => (outcome.status === "completed" ? [i] : []))
  expect(winners).toHaveLength(1)
  expect(await readFile(file, "utf8")).toBe(`writer ${winners[0]}\n`)
  for (const outcome of outcomes.filter((outcome) => outcome.status === "error")) {
    expect(outcome.error).toMatch(refusal)
    expect(outcome.error).not.toMatch(/permission/)
  }
}

describe("20 toolbelt processes writing one whole file at once", () => {
  it(
    "each having read it in its own session: one write lands, the others say the file changed since they read it",
    async () => {
      const file = join(project, "whole.txt")
      await writeFile(file, "original\n")
      const sessions = Array.from({ length: 20 }, (_, i) => `ses_writer_${i}`)
      await readInSessions(file, sessions)
      await writeAtOnce(
        file,
        sessions,
        /^The file .*whole\.txt was modified since it was last read \(by you, at /,
      )
    },
    TIMEOUT,
  )

  it(
    "creating a new file: one write creates it, the others are told it exists now and was not read",
    async () => {
      const file = join(project, "new.txt")
      const fresh = Array.from({ length: 20 }, () => undefined)
      await writeAtOnce(file, fresh, /^You must read the file .*new\.txt before overwriting it/)
    },
    TIMEOUT,
  )
})

describe("a file another toolbelt process keeps locked", () => {
  it(
    "edit, write and apply_patch give up after the configured wait, name the holder and ask for a retry",
    async () => {
      const file = join(project, "held.txt")
      await writeFile(file, "one\n")
      const holder = spawn(process.execPath, [holderScript, "hold", file], {
        env: { ...process.env, TOOLBELT_LOCK_DIR: lockDir },
        stdio: ["ignore", "pipe", "inherit"],
      })
      try {
        await new Promise((resolve) => holder.stdout.once("data", resolve))
        const patch = "*** Begin Patch\n*** Update File: held.txt\n@@\n-one\n+two\n*** End Patch"
        const outcomes = await Promise.all([
          call("edit", { filePath: file, oldString: "one", newString: "two" }, undefined, 300),
          call("write", { filePath: file, content: "two\n" }, undefined, 300),
          call("apply_patch", { patchText: patch }, undefined, 300),
        ])
        for (const outcome of outcomes) {
          expect(outcome).toMatchObject({ status: "error", exitCode: 1 })
          expect(outcome.error).toMatch(
            new RegExp(
              `^The file ${file.replaceAll(".", "\\.")} is locked: another toolbelt process \\(pid ${holder.pid}\\) has been changing it since .*Z \\([\\d.]+ s ago\\), and this call waited 0\\.3 s for it\\. Nothing was changed by this call\\. Retry the edit`,
            ),
          )
        }
        expect(await readFile(file, "utf8")).toBe("one\n")

        // The user's config sets the wait too (`file.lock_wait_ms`), over the environment's (a project's
        // own `file` settings count only once the project is trusted).
        const userConfig = join(root, ".config", "toolbelt")
        await mkdir(userConfig, { recursive: true })
        await writeFile(join(userConfig, "toolbelt.json"), JSON.stringify({ file: { lock_wait_ms: 200 } }))
        const configured = await call("edit", { filePath: file, oldString: "one", newString: "two" })
        expect(configured.error).toContain("and this call waited 0.2 s for it.")
      } finally {
        holder.kill("SIGKILL")
      }
    },
    TIMEOUT,
  )
})
