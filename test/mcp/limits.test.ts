// The stdio server's resources under a hostile client: thousands of calls at once, and a client that
// sends and never reads. Memory is measured in the server process itself (/proc/<pid>/status).
import { spawn } from "node:child_process"
import { writeFile } from "node:fs/promises"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { MiB, memoryOf, settled } from "../proc-memory.ts"
import { bin, makeProject, type Project } from "./helpers.ts"
import { callTool, initialize, initialized } from "./raw.ts"

const onLinux = process.platform === "linux"

/** A 45 KB file of numbered lines, like a source file an agent reads. */
async function bigFile(dir: string): Promise<string> {
  const path = join(dir, "big.txt")
  const lines = Array.from({ length: 900 }, (_, n) => `line ${n}: ${"x".repeat(40)}`)
  await writeFile(path, `${lines.join("\n")}\n`)
  return path
}

/** Reads that differ (the loop guard stops the third identical call in a row), each ending at line 899. */
function readArgs(path: string, n: number) {
  return { filePath: path, offset: (n % 800) + 1 }
}

/** `toolbelt mcp` over raw pipes; stdout is read only when asked to. */
function startMcp(project: Project) {
  const child = spawn(process.execPath, [bin, "mcp", "--cwd", project.dir], {
    cwd: project.dir,
    env: project.env,
    stdio: ["pipe", "pipe", "ignore"],
  })
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  return {
    child,
    lines: () => createInterface({ input: child.stdout }),
    async stop() {
      // Unread output and unsent input would keep the pipes, and so the processes, busy.
      child.stdout.destroy()
      child.stdin.destroy()
      child.kill("SIGTERM")
      await exited
    },
  }
}

/** Sends `initialize` and `initialized` and waits for the answer. */
async function handshake(server: ReturnType<typeof startMcp>): Promise<void> {
  server.child.stdin.write(`${JSON.stringify(initialize("2025-06-18", 0))}\n`)
  const lines = server.lines()
  await new Promise<void>((resolve) => lines.once("line", () => resolve()))
  lines.close()
  server.child.stdin.write(`${JSON.stringify(initialized)}\n`)
}

describe.skipIf(!onLinux)("MCP stdio server resources (Linux: memory read from /proc)", () => {
  let project: Project

  beforeEach(async () => {
    project = await makeProject()
  })

  afterEach(async () => {
    await project.remove()
  })

  it("10,000 reads of a 45 KB file sent at once: each is answered, and the server stays under 1 GiB", async () => {
    const path = await bigFile(project.dir)
    const server = startMcp(project)
    try {
      await handshake(server)
      const total = 10_000
      const answers = new Map<number, { isError?: boolean; content: { text: string }[] }>()
      const lines = server.lines()
      const all = new Promise<void>((resolve) =>
        lines.on("line", (line) => {
          const message = JSON.parse(line) as { id?: number; result?: never }
          if (typeof message.id === "number" && message.result) answers.set(message.id, message.result)
          if (answers.size === total) resolve()
        }),
      )
      const requests = Array.from(
        { length: total },
        (_, n) => `${JSON.stringify(callTool(n + 1, "read", readArgs(path, n)))}\n`,
      )
      server.child.stdin.write(requests.join(""))
      await all
      const { peak } = await memoryOf(server.child.pid!)
      const read = [...answers.values()].filter((result) => !result.isError)
      // At least those that ran at once, and those that waited for them; any other was refused.
      expect(read.length).toBeGreaterThanOrEqual(32 + 64)
      expect(read[0]!.content[0]!.text).toContain("line 899")
      for (const result of answers.values()) {
        if (result.isError) expect(result.content[0]!.text).toContain("Too many tool calls at once")
      }
      expect(peak).toBeLessThan(1024 * MiB)
    } finally {
      await server.stop()
    }
  }, 180_000)

  it("calls beyond those running and waiting are refused at once, with the limit and what to do", async () => {
    await writeFile(
      join(project.dir, "toolbelt.json"),
      JSON.stringify({ mcp: { max_calls_per_session: 2, max_queued_calls: 3 } }),
    )
    const path = await bigFile(project.dir)
    const server = startMcp(project)
    try {
      await handshake(server)
      const total = 200
      const answers: { isError?: boolean; content: { text: string }[] }[] = []
      const lines = server.lines()
      const all = new Promise<void>((resolve) =>
        lines.on("line", (line) => {
          const message = JSON.parse(line) as { id?: number; result?: never }
          if (typeof message.id === "number" && message.result) answers.push(message.result)
          if (answers.length === total) resolve()
        }),
      )
      const requests = Array.from(
        { length: total },
        (_, n) => `${JSON.stringify(callTool(n + 1, "read", readArgs(path, n)))}\n`,
      )
      server.child.stdin.write(requests.join(""))
      await all
      const refused = answers.filter((result) => result.isError)
      expect(answers.length - refused.length).toBeGreaterThanOrEqual(2 + 3)
      expect(refused.length).toBeGreaterThan(0)
      const text = refused[0]!.content[0]!.text
      expect(text).toContain("Too many tool calls at once")
      expect(text).toContain("at most 2 run per session")
      expect(text).toContain('"mcp.max_calls_per_session"')
    } finally {
      await server.stop()
    }
  }, 60_000)

  it("a client that sends 4,000 reads and does not read stdout: the server stops reading stdin, grows by far less than before, and answers everything once it is read", async () => {
    const path = await bigFile(project.dir)
    const server = startMcp(project)
    try {
      await handshake(server)
      // One read first: the code of a call is loaded once, whatever the client does.
      server.child.stdin.write(`${JSON.stringify(callTool(0, "read", readArgs(path, 0)))}\n`)
      const first = server.lines()
      await new Promise<void>((resolve) => first.once("line", () => resolve()))
      first.close()
      const before = await memoryOf(server.child.pid!)
      server.child.stdout.pause()
      const total = 4000
      const requests = Array.from(
        { length: total },
        (_, n) => `${JSON.stringify(callTool(n + 1, "read", readArgs(path, n + 1)))}\n`,
      )
      server.child.stdin.write(requests.join(""))
      // Until the server takes no more of stdin and its memory no longer grows (its peak only rises).
      await settled(
        async () =>
          server.child.stdin.writableLength +
          Math.round((await memoryOf(server.child.pid!)).peak / (4 * MiB)),
      )
      const after = await memoryOf(server.child.pid!)
      // Requests are left unread: the server stopped taking them while its answers were not read.
      expect(server.child.stdin.writableLength).toBeGreaterThan(0)
      // Before back-pressure it grew by some 615 MiB; with stdin paused alone, by some 150 (the calls
      // already read went on starting, and their answers piled up); with them held too, by some 70.
      expect(after.peak - before.rss).toBeLessThan(150 * MiB)

      // Reading again: everything sent gets its answer.
      const ids = new Set<number>()
      const lines = server.lines()
      await new Promise<void>((resolve) =>
        lines.on("line", (line) => {
          const message = JSON.parse(line) as { id?: number }
          if (typeof message.id === "number" && message.id > 0) ids.add(message.id)
          if (ids.size === total) resolve()
        }),
      )
      expect(ids.size).toBe(total)
    } finally {
      await server.stop()
    }
  }, 240_000)
})
