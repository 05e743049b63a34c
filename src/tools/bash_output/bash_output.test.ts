import { readFileSync } from "node:fs"
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { jobs, killSessionJobs, portOpen } from "../../platform/shell/jobs/index.ts"
import { gone } from "../../platform/shell/run/fixtures/process-gone.ts"
import { DEFAULT_LIMITS } from "../../platform/text/limits.ts"
import { OutputStore } from "../../runtime/output/store.ts"
import { RulePermissions } from "../../runtime/permission/simple.ts"
import { Registry } from "../../runtime/registry/registry.ts"
import { DoomLoopGuard } from "../../runtime/settle/doom-loop.ts"
import { type CallRequest, type SettleDeps, type Settlement, settle } from "../../runtime/settle/settle.ts"
import { BashTool } from "../bash/bash.ts"
import { BashKillTool } from "../bash_kill/bash_kill.ts"
import { BashOutputTool } from "./bash_output.ts"

let root: string
let project: string
let storeDir: string
let deps: SettleDeps
const SESSION = "ses_jobs"

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "toolbelt-jobs-"))
  project = join(root, "project")
  storeDir = join(root, "data", "tool-output")
  await mkdir(project, { recursive: true })
  const registry = new Registry()
  registry.register({ bash: BashTool, bash_output: BashOutputTool, bash_kill: BashKillTool })
  deps = {
    registry,
    permission: new RulePermissions({ rules: [{ permission: "*", pattern: "*", action: "allow" }] }),
    store: new OutputStore({ dir: storeDir }),
    limits: DEFAULT_LIMITS,
  }
})

afterEach(async () => {
  await killSessionJobs(SESSION)
  await killSessionJobs("ses_other")
  await rm(root, { recursive: true, force: true })
})

let calls = 0
function call(
  tool: string,
  input: Record<string, unknown>,
  options: { sessionID?: string; abort?: AbortSignal } = {},
): Promise<Settlement> {
  const request: CallRequest = {
    tool,
    input,
    sessionID: options.sessionID ?? SESSION,
    messageID: "msg_1",
    agent: "build",
    callID: `call_${++calls}`,
    extra: { directory: project, outputDir: storeDir },
    ...(options.abort ? { abort: options.abort } : {}),
  }
  return settle(request, deps)
}

function completed(result: Settlement) {
  if (result.status !== "completed") throw new Error(`expected completed, got ${JSON.stringify(result)}`)
  return result
}

/** Starts `command` as a background job of this session: the completed call and the job's id. */
async function background(command: string, options: Record<string, unknown> = {}) {
  const started = completed(await call("bash", { command, run_in_background: true, ...options }))
  return { started, id: String(started.metadata.jobID) }
}

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

const server = (port: number) =>
  `node -e "require('http').createServer((q, s) => { console.log('request ' + q.url); s.end('pong') }).listen(${port}, '127.0.0.1', () => console.log('listening on ${port}'))"`

describe("background jobs", () => {
  it("starts a server, waits for its port, reads its output and kills it", async () => {
    const port = await freePort()
    const { started, id } = await background(server(port), { ready_port: port, description: "Dev server" })
    expect(id).toMatch(/^job_[0-9a-f]{8}$/)
    expect(started.output).toContain(
      `Background job ${id} (pid ${started.metadata.pid}) is ready: port ${port} accepts connections.`,
    )
    expect(started.output).toContain(`bash_output (job_id "${id}")`)
    expect(await portOpen(port)).toBe(true)

    const response = await fetch(`http://127.0.0.1:${port}/hello`)
    expect(await response.text()).toBe("pong")
    // The server logs the request asynchronously: read until it shows up (bounded), as a model would.
    let first = completed(await call("bash_output", { job_id: id }))
    let seen = first.output
    for (let i = 0; i < 50 && !seen.includes("request /hello"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      first = completed(await call("bash_output", { job_id: id }))
      seen += first.output
    }
    expect(first.output).toMatch(
      new RegExp(`^Job ${id} \\(Dev server\\): running for [0-9.]+ s \\(pid \\d+\\)\\.`),
    )
    expect(seen).toContain("request /hello")
    expect(first.metadata).toMatchObject({ status: "running", exit: null })

    const second = completed(await call("bash_output", { job_id: id }))
    expect(second.output).toContain("(no new output)")

    const killed = completed(await call("bash_kill", { job_id: id }))
    expect(killed.output).toMatch(new RegExp(`^Killed job ${id}: \\d+ node -e`))
    expect(killed.metadata.status).toBe("killed")
    expect(await portOpen(port)).toBe(false)
    for (const pid of killed.metadata.killed as number[]) expect(gone(pid)).toBe(true)

    const after = completed(await call("bash_output", { job_id: id }))
    expect(after.output).toContain("killed by bash_kill")
  })

  it("waits for a line of output matching ready_pattern", async () => {
    const { started } = await background(
      "echo starting; sleep 0.3; echo 'Server ready on port 1234'; sleep 30",
      { ready_pattern: "ready on port \\d+" },
    )
    expect(started.output).toContain("is ready: its output matched /ready on port \\d+/")
    expect(started.output).toContain("starting\nServer ready on port 1234")
  })

  it("returns a job id at once without readiness options", async () => {
    // The call returns while the job runs on (its status says so), without waiting for it to end.
    const { started } = await background("sleep 30")
    expect(started.output).toMatch(/^Started background job job_[0-9a-f]{8} \(pid \d+\): sleep 30/)
    expect(jobs.list(SESSION)[0]?.status).toBe("running")
  })

  it("a job killed right after it starts is killed, every time (the subreaper may not have started the shell yet)", async () => {
    for (let i = 0; i < 100; i++) {
      await background("sleep 600")
      const [job] = jobs.list(SESSION)
      await job!.kill("the test")
      // Before the fix, about 1 in 40 kills found no member yet, called the tree empty, and left the
      // command running: the job never ended and this await never returned.
      expect(await job!.process.done).toMatchObject({ reason: "killed" })
      await killSessionJobs(SESSION)
    }
  }, 120_000)

  it("says so, with its output, when the job exits before it is ready", async () => {
    const port = await freePort()
    const { started } = await background("echo 'Error: cannot bind'; exit 4", { ready_port: port })
    expect(started.output).toMatch(
      /exited with code 4 after [0-9.]+ s before it was ready \(waiting for port \d+\)/,
    )
    expect(started.output).toContain("Error: cannot bind")
    expect(started.metadata.exit).toBe(4)
  })

  it("reports a readiness timeout and leaves the job running", async () => {
    const port = await freePort()
    const { started } = await background("echo booting; sleep 30", { ready_port: port, ready_timeout: 300 })
    expect(started.output).toContain("is still running, but was not ready after 300 ms (waiting for port")
    expect(started.output).toContain("booting")
    expect(jobs.get(SESSION, String(started.metadata.jobID))?.status).toBe("running")
  })

  it("kills the job when the call is aborted while waiting for readiness", async () => {
    const port = await freePort()
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 300)
    const result = await call(
      "bash",
      { command: "sleep 30", run_in_background: true, ready_port: port },
      { abort: controller.signal },
    )
    expect(result.status === "error" && result.kind).toBe("interrupted")
    // The kill finishes in the background: wait for it (a job that is never killed times the test out).
    await until(() => jobs.list(SESSION)[0]?.status === "killed")
  })

  it("bounds a large log and points at the full log file", async () => {
    const { started, id } = await background(
      "echo 'error: early failure'; seq 1 5000; echo finished; sleep 30",
      { ready_pattern: "^finished$" },
    )
    expect(started.metadata.truncated).toBe(true)
    expect(started.output).toContain("...output truncated...")
    expect(started.output).toContain("  line 1: error: early failure")
    const log = String(started.metadata.outputPath)
    expect(await readFile(log, "utf8")).toMatch(/^error: early failure\n1\n2\n[\s\S]*\n5000\nfinished\n$/)
    expect(started.output).toContain(`Full output saved to: ${log}`)
    expect(started.output.endsWith("5000\nfinished")).toBe(true)
    const next = completed(await call("bash_output", { job_id: id }))
    expect(next.output).toContain("(no new output)")
  })

  it("numbers lines across reads as in the full log", async () => {
    const { id } = await background(
      "seq 1 10; echo mark-a; sleep 0.5; seq 11 3000; echo 'FAIL late test'; seq 3001 5000; echo mark-b; sleep 30",
      { ready_pattern: "mark-a" },
    )
    // Until everything up to mark-b is in the log, however long the machine takes to print it.
    const log = jobs.list(SESSION).find((job) => job.id === id)?.logPath
    await until(() => readFileSync(log!, "utf8").includes("mark-b"))
    const read = completed(await call("bash_output", { job_id: id }))
    // Line 11 is mark-a; "FAIL late test" follows 2990 numbers, so it is line 3002 of the log.
    expect(read.output).toContain("  line 3002: FAIL late test")
    expect(read.output).toMatch(/read lines 12-\d+ /)
  })

  it("keeps jobs per session", async () => {
    const { id } = await background("sleep 30")
    const other = await call("bash_output", { job_id: id }, { sessionID: "ses_other" })
    expect(other.status === "error" && other.error).toContain(
      `There is no background job "${id}" in this session.`,
    )
    const kill = await call("bash_kill", { job_id: id }, { sessionID: "ses_other" })
    expect(kill.status).toBe("error")
    expect(jobs.get(SESSION, id)?.status).toBe("running")
  })

  it("bash_output and bash_kill answer an unknown job alike: the session's jobs, or how to start one", async () => {
    const { id } = await background("sleep 30", { description: "sleeper" })
    for (const tool of ["bash_output", "bash_kill"]) {
      const listed = await call(tool, { job_id: "job_nope" })
      expect(listed.status === "error" && listed.error).toContain(
        `There is no background job "job_nope" in this session. Its jobs: ${id} (sleeper, running). Use one of these ids.`,
      )
      const none = await call(tool, { job_id: id }, { sessionID: "ses_without_jobs" })
      expect(none.status === "error" && none.error).toContain(
        "It has no background jobs; start one with bash and run_in_background: true.",
      )
    }
    expect(jobs.get(SESSION, id)?.status).toBe("running")
  })

  it("kills a session's jobs when the session ends, including processes that left the group", async () => {
    const { started } = await background("(setsid sleep 300 &); sleep 0.2; echo started; sleep 30", {
      ready_pattern: "started",
    })
    const job = jobs.get(SESSION, String(started.metadata.jobID))!
    const killed = await killSessionJobs(SESSION)
    expect(killed).toHaveLength(1)
    const pids = killed[0]!.report.killed.map((info) => info.pid)
    // The daemon left the job's session; it is found by the run marker in its environment.
    expect(killed[0]!.report.killed.map((info) => info.command)).toContain("sleep 300")
    for (const pid of pids) expect(gone(pid)).toBe(true)
    expect(job.status).toBe("killed")
    expect(jobs.get(SESSION, job.id)).toBeUndefined()
  })
})

describe("polling and the loop guard", () => {
  it("polling a running job is never a loop; polling it after it ended is", async () => {
    const rules = [
      { permission: "*", pattern: "*", action: "allow" as const },
      { permission: "doom_loop", pattern: "*", action: "deny" as const },
    ]
    deps = { ...deps, permission: new RulePermissions({ rules }), doomLoop: new DoomLoopGuard() }
    const { id } = await background("echo started; sleep 600", { ready_pattern: "started" })
    // The same call, and after the first read the same "(no new output)" again and again.
    for (let i = 0; i < 10; i++) {
      const polled = completed(await call("bash_output", { job_id: id }))
      expect(polled.metadata.status).toBe("running")
    }
    completed(await call("bash_kill", { job_id: id }))
    // Ended: its answer can no longer change, so the third identical read in a row is refused.
    completed(await call("bash_output", { job_id: id }))
    completed(await call("bash_output", { job_id: id }))
    const third = await call("bash_output", { job_id: id })
    expect(third).toMatchObject({ status: "error", kind: "loop" })
  })
})

/** Waits for `condition`, checking every 20 ms; a condition that never holds is caught by the test timeout. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20))
}
