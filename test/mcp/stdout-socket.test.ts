// `toolbelt mcp` over the socket a Node client's spawn gives it: the socket's send buffer is raised
// once the connection is up (src/surfaces/mcp-server/stdout-socket.ts), which the server says at debug.
import { spawn } from "node:child_process"
import { createInterface } from "node:readline"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { bin, makeProject, type Project } from "./helpers.ts"
import { initialize, initialized } from "./raw.ts"

describe.skipIf(process.platform !== "linux")("toolbelt mcp's stdout socket (Linux)", () => {
  let project: Project

  beforeEach(async () => {
    project = await makeProject()
  })

  afterEach(async () => {
    await project.remove()
  })

  it("is made to hold more once the connection is up, and the server goes on answering", async () => {
    const child = spawn(process.execPath, [bin, "mcp", "--cwd", project.dir, "--no-warm-up"], {
      cwd: project.dir,
      env: { ...project.env, TOOLBELT_LOG: "debug" },
      stdio: ["pipe", "pipe", "pipe"],
    })
    try {
      const said = new Promise<string>((resolve) => {
        createInterface({ input: child.stderr }).on("line", (line) => {
          if (line.includes("stdout's socket holds")) resolve(line)
        })
      })
      const lines = createInterface({ input: child.stdout })
      const answer = (id: number) =>
        new Promise<unknown>((resolve) =>
          lines.on("line", (line) => {
            const message = JSON.parse(line) as { id?: number }
            if (message.id === id) resolve(message)
          }),
        )
      const initializeAnswered = answer(0)
      child.stdin.write(`${JSON.stringify(initialize("2025-06-18", 0))}\n`)
      await initializeAnswered
      child.stdin.write(`${JSON.stringify(initialized)}\n`)
      const line = await said
      const [, after, before] = /holds (\d+) bytes \(it held (\d+)\)/.exec(line) ?? []
      expect(Number(after)).toBeGreaterThan(Number(before))
      const listed = answer(1)
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })}\n`)
      expect(await listed).toMatchObject({ id: 1, result: { tools: expect.any(Array) } })
    } finally {
      child.kill("SIGTERM")
      await new Promise((resolve) => child.once("exit", resolve))
    }
  }, 60_000)
})
