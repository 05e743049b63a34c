// The spec's doom-loop guard (a third identical call asks `doom_loop`), kept output-aware, through noise:
// real `toolbelt call bash` processes in one session, whose answers change only in what is noise
// (timings, timestamps, PIDs, temp dirs) or really change (a log that grows).
import { mkdir, mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { runCli } from "../fixtures/cli.ts"

let root: string
let project: string
let home: string

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "toolbelt-loop-noise-"))
  project = join(root, "project")
  home = join(root, "home")
  await mkdir(project)
  await mkdir(home)
})

afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

type Result = { status: "completed"; output: string } | { status: "error"; error: string }

function bash(command: string, session: string): Result {
  const input = JSON.stringify({ command, description: "Run the tests" })
  const run = runCli(["call", "bash", input, "--cwd", project, "--session", session, "--json"], {
    cwd: project,
    home,
  })
  return JSON.parse(run.stdout) as Result
}

/** Calls until the loop guard stops one (at most `max`); the results, in order. */
function until(command: string, session: string, max: number): Result[] {
  const results: Result[] = []
  for (let i = 0; i < max; i++) {
    const result = bash(command, session)
    results.push(result)
    if (result.status === "error") break
  }
  return results
}

const stopped = (result: Result | undefined) =>
  result?.status === "error" && result.error.startsWith("The loop guard stopped this call: bash")

describe("the doom-loop guard sees through noise", { timeout: 180_000 }, () => {
  it("a failing command rerun with only its duration changed is stopped by the third or fourth call", () => {
    const results = until("echo FAIL in $RANDOM ms; exit 1", "ses_duration", 5)
    expect(results.length).toBeGreaterThanOrEqual(3)
    expect(results.length).toBeLessThanOrEqual(4)
    expect(results.slice(0, -1).every((result) => result.status === "completed")).toBe(true)
    // The outputs really differed (so without masking, no loop would be seen).
    const outputs = results.flatMap((result) => (result.status === "completed" ? [result.output] : []))
    expect(new Set(outputs).size).toBeGreaterThan(1)
    expect(stopped(results.at(-1))).toBe(true)
  })

  it("so is one that differs in its timestamp, PID and temp dir", () => {
    const command =
      'd=$(mktemp -d); echo "$(date -u +%Y-%m-%dT%H:%M:%S.%NZ) pid $$: FAIL: build in $d failed (Time: 0.$RANDOM s)"; rmdir "$d"; exit 1'
    const results = until(command, "ses_stamps", 5)
    expect(results.length).toBeLessThanOrEqual(4)
    expect(stopped(results.at(-1))).toBe(true)
  })

  it("five calls on a log that really grows all run, timestamps and all", () => {
    const command = 'echo "$(date -u +%H:%M:%S.%N) step done in $RANDOM ms" >> build.log; cat build.log'
    const results = until(command, "ses_growing", 5)
    expect(results.map((result) => result.status)).toEqual(Array(5).fill("completed"))
    const last = results[4]!
    expect(last.status === "completed" && last.output.match(/step done/g)).toHaveLength(5)
  })
})
