// `toolbelt mcp` over stdio, started as a real subprocess and driven with the official MCP client.
import { spawn, spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { readFile, writeFile } from "node:fs/promises"
import { join } from "node:path"
import type { ElicitResult, Progress, Tool } from "@modelcontextprotocol/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { openStore } from "../../src/platform/store/store.ts"
import {
  type Answer,
  bin,
  connectStdio,
  expectCancelledSleepKilled,
  makeProject,
  type Project,
  type StdioConnected,
  textOf,
  until,
} from "./helpers.ts"

const once: Answer = () => ({ action: "accept", content: { decision: "once" } })
const always: Answer = () => ({ action: "accept", content: { decision: "always" } })
const decline: Answer = () => ({ action: "decline" })
const rejectWith =
  (message: string): Answer =>
  () => ({ action: "accept", content: { decision: "reject", message } })

describe("toolbelt mcp over stdio, a 2025-era client that can show asks", () => {
  let project: Project
  let server: StdioConnected
  let tools: Tool[]
  // Each test queues the answers the person gives.
  const answers: Answer[] = []

  beforeAll(async () => {
    project = await makeProject()
    await writeFile(join(project.dir, "notes.txt"), "alpha\nbeta\ngamma\n")
    server = await connectStdio(project, {
      answer: (params) => (answers.shift() ?? decline)(params) as ElicitResult,
    })
    tools = (await server.client.listTools()).tools
  })

  afterAll(async () => {
    await server?.close()
    await project?.remove()
  })

  it("negotiates a 2025 revision through initialize", () => {
    expect(server.client.getProtocolEra()).toBe("legacy")
    expect(server.client.getNegotiatedProtocolVersion()).toBe("2025-11-25")
    expect(server.client.getServerVersion()?.name).toBe("toolbelt")
  })

  it("lists every advertised tool with its JSON Schema and hints, and never `invalid`", () => {
    const names = tools.map((tool) => tool.name)
    expect(names).toEqual(expect.arrayContaining(["echo", "fail", "outside", "slow", "steps", "measure"]))
    expect(names).not.toContain("invalid")
    const echo = tools.find((tool) => tool.name === "echo")!
    expect(echo.description).toBe("Echoes its text back.")
    expect(echo.inputSchema).toMatchObject({
      type: "object",
      properties: { text: { type: "string", description: "what to echo" } },
      required: ["text"],
    })
    expect(echo.outputSchema).toBeUndefined()
  })

  it("derives the hints from what the built-in tools declare", () => {
    const hints = Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations ?? {}]))
    for (const name of ["read", "list", "glob", "grep", "bash_output"]) {
      expect(hints[name], name).toMatchObject({ readOnlyHint: true })
    }
    for (const name of ["write", "edit", "multiedit", "apply_patch", "bash", "bash_kill"]) {
      expect(hints[name], name).toMatchObject({ destructiveHint: true })
    }
    expect(hints.echo).toEqual({})
  })

  it("calls a tool", async () => {
    const result = await server.client.callTool({ name: "echo", arguments: { text: "hello" } })
    expect(result.isError).toBeFalsy()
    expect(result.content).toEqual([{ type: "text", text: "hello" }])
  })

  it("answers invalid input with isError and toolbelt's own validation message", async () => {
    const result = await server.client.callTool({ name: "echo", arguments: { text: 5 } })
    expect(result.isError).toBe(true)
    expect(textOf(result)).toBe(
      "The echo tool was called with invalid arguments: text: Invalid input: expected string, received number.\nPlease rewrite the input so it satisfies the expected schema.",
    )
  })

  it("answers a tool failure with isError", async () => {
    const result = await server.client.callTool({ name: "fail", arguments: {} })
    expect(result.isError).toBe(true)
    expect(textOf(result)).toBe("this tool always fails")
  })

  it("returns images as image content", async () => {
    const result = await server.client.callTool({ name: "picture", arguments: {} })
    expect(result.content).toEqual([
      { type: "text", text: "a pixel" },
      { type: "image", mimeType: "image/png", data: expect.stringMatching(/^iVBOR/) },
    ])
  })

  it("lists a declared output schema and returns structuredContent", async () => {
    const measure = tools.find((tool) => tool.name === "measure")!
    expect(measure.outputSchema).toMatchObject({
      type: "object",
      properties: { word: { type: "string" }, letters: { type: "integer" } },
    })
    const result = await server.client.callTool({ name: "measure", arguments: { word: "toolbelt" } })
    expect(result.structuredContent).toEqual({ word: "toolbelt", letters: 8 })
  })

  it("shows an ask as a form and goes on when the person allows it once", async () => {
    answers.push(once)
    const before = server.asked.length
    const result = await server.client.callTool({ name: "reach", arguments: { path: "/srv/once/*" } })
    expect(textOf(result)).toBe("reached /srv/once/*")
    const form = server.asked[before]!
    expect(form.mode ?? "form").toBe("form")
    expect(form.message).toContain('The reach tool asks for permission "external_directory"')
    expect(form.message).toContain("/srv/once/*")
    expect(form.message).toContain('saves "external_directory" for /srv/once/* for this project')
    expect(form.requestedSchema.properties.decision).toMatchObject({
      type: "string",
      oneOf: [
        { const: "once", title: "Allow once" },
        { const: "always", title: 'Always allow "external_directory" for /srv/once/*' },
        { const: "reject", title: "Reject" },
      ],
    })
    // Once is not remembered: the next call asks again.
    answers.push(once)
    await server.client.callTool({ name: "reach", arguments: { path: "/srv/once/*" } })
    expect(server.asked.length).toBe(before + 2)
  })

  it("fails the call when the person declines", async () => {
    answers.push(decline)
    const result = await server.client.callTool({ name: "reach", arguments: { path: "/srv/declined/*" } })
    expect(result.isError).toBe(true)
    expect(textOf(result)).toBe("The user rejected permission to use this specific tool call.")
  })

  it("passes the person's message to the model when they reject with one", async () => {
    answers.push(rejectWith("use the copy in the project instead"))
    const result = await server.client.callTool({ name: "reach", arguments: { path: "/srv/corrected/*" } })
    expect(result.isError).toBe(true)
    expect(textOf(result)).toContain("with the following feedback: use the copy in the project instead")
  })

  it("remembers an 'always' for the project: the next call does not ask", async () => {
    answers.push(always)
    const before = server.asked.length
    expect(
      textOf(await server.client.callTool({ name: "reach", arguments: { path: "/srv/always/*" } })),
    ).toBe("reached /srv/always/*")
    expect(
      textOf(await server.client.callTool({ name: "reach", arguments: { path: "/srv/always/*" } })),
    ).toBe("reached /srv/always/*")
    expect(server.asked.length).toBe(before + 1)
    const saved = spawnSync(process.execPath, [bin, "permissions", "list", "--json", "--cwd", project.dir], {
      encoding: "utf8",
      env: project.env,
    })
    expect(JSON.parse(saved.stdout)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ permission: "external_directory", pattern: "/srv/always/*" }),
      ]),
    )
  })

  it("aborts the running call when the client cancels it", async () => {
    const abort = new AbortController()
    const call = server.client.callTool(
      { name: "hold", arguments: { marker: "cancelled" } },
      { signal: abort.signal },
    )
    await until(() => server.stderr().includes("hold cancelled started"), "the call to start")
    abort.abort()
    await expect(call).rejects.toThrow()
    await until(() => existsSync(join(project.dir, "cancelled.aborted")), "the tool to see the abort")
    // The connection is still good.
    expect(textOf(await server.client.callTool({ name: "echo", arguments: { text: "after" } }))).toBe("after")
  })

  it("sends the call's live metadata as progress when the client asks for it", async () => {
    const progress: Progress[] = []
    const result = await server.client.callTool(
      { name: "steps", arguments: { n: 5, ms: 80 } },
      { onprogress: (update) => progress.push(update) },
    )
    expect(textOf(result)).toBe("done")
    expect(progress.length).toBeGreaterThanOrEqual(2)
    expect(progress.map((update) => update.progress)).toEqual(progress.map((_, index) => index + 1))
    expect(progress.at(-1)?.message).toMatch(/^stepping: step \d of 5$/)
  })

  it("keeps stdout for the protocol: a plugin's console.log goes to stderr", async () => {
    const result = await server.client.callTool({ name: "noisy", arguments: {} })
    expect(textOf(result)).toBe("quiet")
    await until(() => server.stderr().includes("noise from a plugin"), "the noise on stderr")
  })

  it("runs every call of the connection in one session", async () => {
    const first = textOf(await server.client.callTool({ name: "whoami", arguments: {} }))
    const second = textOf(await server.client.callTool({ name: "whoami", arguments: {} }))
    expect(first).toMatch(/^ses_/)
    expect(second).toBe(first)
  })

  it("reads a file", async () => {
    const result = await server.client.callTool({ name: "read", arguments: { filePath: "notes.txt" } })
    expect(result.isError).toBeFalsy()
    expect(textOf(result)).toContain("beta")
  })

  it("edits a file it read", async () => {
    await server.client.callTool({ name: "read", arguments: { filePath: "notes.txt" } })
    const result = await server.client.callTool({
      name: "edit",
      arguments: { filePath: "notes.txt", oldString: "beta", newString: "BETA" },
    })
    expect(result.isError, textOf(result)).toBeFalsy()
    expect(await readFile(join(project.dir, "notes.txt"), "utf8")).toBe("alpha\nBETA\ngamma\n")
  })

  it("searches with grep", async () => {
    const result = await server.client.callTool({ name: "grep", arguments: { pattern: "gamma" } })
    expect(result.isError, textOf(result)).toBeFalsy()
    expect(textOf(result)).toContain("notes.txt")
  })

  it("runs a command with bash", async () => {
    const result = await server.client.callTool({ name: "bash", arguments: { command: "echo from-bash" } })
    expect(result.isError, textOf(result)).toBeFalsy()
    expect(textOf(result)).toContain("from-bash")
  })

  it("streams a command's output as progress", async () => {
    const progress: Progress[] = []
    const result = await server.client.callTool(
      { name: "bash", arguments: { command: "for i in 1 2 3 4 5; do echo tick$i; sleep 0.2; done" } },
      { onprogress: (update) => progress.push(update) },
    )
    expect(textOf(result)).toContain("tick5")
    expect(progress.some((update) => /tick\d/.test(update.message ?? ""))).toBe(true)
  })

  it("kills a cancelled `sleep`", () => expectCancelledSleepKilled(server.client, "31.4159"))
})

describe("toolbelt mcp over stdio, a client that cannot show asks", () => {
  let project: Project

  beforeAll(async () => {
    project = await makeProject()
  })

  afterAll(async () => {
    await project?.remove()
  })

  it("rejects the ask by default, and the error says how to allow it in config", async () => {
    const server = await connectStdio(project)
    try {
      const result = await server.client.callTool({ name: "reach", arguments: { path: "/srv/data/*" } })
      expect(result.isError).toBe(true)
      const text = textOf(result)
      expect(text).toContain('Permission "external_directory" for /srv/data/* needs approval')
      expect(text).toContain("does not support elicitation")
      expect(text).toContain(
        `add {"permission":{"external_directory":{"/srv/data/*":"allow"}}} to toolbelt.json in ${project.dir}`,
      )
      expect(text).toContain('{"mcp":{"ask":"allow"}}')
    } finally {
      await server.close()
    }
  })

  it('approves it with "mcp": {"ask": "allow"}', async () => {
    const allowing = await makeProject({ mcp: { ask: "allow" } })
    const server = await connectStdio(allowing)
    try {
      const result = await server.client.callTool({ name: "reach", arguments: { path: "/srv/data/*" } })
      expect(result.isError).toBeFalsy()
      expect(textOf(result)).toBe("reached /srv/data/*")
    } finally {
      await server.close()
      await allowing.remove()
    }
  })

  it("allows what the config allows without asking anyone", async () => {
    const configured = await makeProject({ permission: { external_directory: { "/srv/open/*": "allow" } } })
    const server = await connectStdio(configured)
    try {
      expect(
        textOf(await server.client.callTool({ name: "reach", arguments: { path: "/srv/open/*" } })),
      ).toBe("reached /srv/open/*")
    } finally {
      await server.close()
      await configured.remove()
    }
  })

  it("does not list the tools the policy hides, and cannot call them", async () => {
    const hiding = await makeProject({ permission: { echo: "deny" } })
    const server = await connectStdio(hiding)
    try {
      const names = (await server.client.listTools()).tools.map((tool) => tool.name)
      expect(names).not.toContain("echo")
      expect(names).toContain("fail")
      await expect(server.client.callTool({ name: "echo", arguments: { text: "x" } })).rejects.toThrow(
        /Tool echo not found/,
      )
    } finally {
      await server.close()
      await hiding.remove()
    }
  })

  it("gives each connection its own session", async () => {
    const [a, b] = await Promise.all([connectStdio(project), connectStdio(project)])
    try {
      const [sessionA, sessionB] = await Promise.all([
        a.client.callTool({ name: "whoami", arguments: {} }),
        b.client.callTool({ name: "whoami", arguments: {} }),
      ])
      expect(textOf(sessionA)).toMatch(/^ses_/)
      expect(textOf(sessionB)).toMatch(/^ses_/)
      expect(textOf(sessionA)).not.toBe(textOf(sessionB))
    } finally {
      await Promise.all([a.close(), b.close()])
    }
  })

  it("runs as the agent named with --agent", async () => {
    const server = await connectStdio(project, { args: ["--agent", "plan"] })
    try {
      expect(textOf(await server.client.callTool({ name: "agent", arguments: {} }))).toBe("plan")
    } finally {
      await server.close()
    }
  })

  it("refuses an unknown agent with exit code 2", () => {
    const result = spawnSync(process.execPath, [bin, "mcp", "--cwd", project.dir, "--agent", "nobody"], {
      encoding: "utf8",
      env: project.env,
      input: "",
      timeout: 30_000,
    })
    expect(result.status).toBe(2)
    expect(result.stderr).toContain('Unknown agent "nobody"')
  })

  it("records a read the client got, even when the client leaves right after it", async () => {
    const own = await makeProject()
    try {
      await writeFile(join(own.dir, "last.txt"), "last words\n")
      const connected = await connectStdio(own)
      const result = await connected.client.callTool({ name: "read", arguments: { filePath: "last.txt" } })
      expect(textOf(result)).toContain("1: last words")
      await connected.client.close()
      // The server answered before committing the read's record; it still commits it before exiting.
      const store = openStore({ dataDir: own.env.TOOLBELT_DATA_DIR! })
      try {
        const completed = () => store.db.prepare("SELECT 1 FROM part WHERE status = 'completed'").all()
        await until(() => completed().length === 1, "the read's record")
        const parts = store.db.prepare("SELECT tool, status FROM part").all()
        expect(parts).toEqual([{ tool: "read", status: "completed" }])
        const kinds = store.db.prepare("SELECT kind FROM journal ORDER BY seq").all<{ kind: string }>()
        expect(kinds.map((row) => row.kind)).toEqual(["requested", "started", "finished"])
      } finally {
        store.close()
      }
    } finally {
      await own.remove()
    }
  })

  it("exits 0 when the client closes stdin", async () => {
    const child = spawn(process.execPath, [bin, "mcp", "--cwd", project.dir], {
      env: project.env,
      stdio: ["pipe", "pipe", "pipe"],
    })
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
    child.stdin.end()
    expect(await exited).toBe(0)
  })
})

describe("toolbelt mcp over stdio, a client that negotiates the 2026-07-28 revision", () => {
  let project: Project
  let server: StdioConnected
  const answers: Answer[] = []

  beforeAll(async () => {
    project = await makeProject()
    server = await connectStdio(project, {
      negotiation: "auto",
      answer: (params) => (answers.shift() ?? decline)(params) as ElicitResult,
    })
  })

  afterAll(async () => {
    await server?.close()
    await project?.remove()
  })

  it("speaks 2026-07-28", () => {
    expect(server.client.getProtocolEra()).toBe("modern")
    expect(server.client.getNegotiatedProtocolVersion()).toBe("2026-07-28")
  })

  it("lists and calls tools", async () => {
    const names = (await server.client.listTools()).tools.map((tool) => tool.name)
    expect(names).toContain("echo")
    expect(names).not.toContain("invalid")
    expect(textOf(await server.client.callTool({ name: "echo", arguments: { text: "modern" } }))).toBe(
      "modern",
    )
  })

  it("asks through input_required and goes on with the answer", async () => {
    answers.push(once)
    const result = await server.client.callTool({ name: "reach", arguments: { path: "/srv/modern/*" } })
    expect(textOf(result)).toBe("reached /srv/modern/*")
    expect(server.asked.at(-1)?.message).toContain("/srv/modern/*")
    answers.push(decline)
    const declined = await server.client.callTool({ name: "reach", arguments: { path: "/srv/modern2/*" } })
    expect(declined.isError).toBe(true)
  })

  it("answers invalid input with toolbelt's validation message", async () => {
    const result = await server.client.callTool({ name: "echo", arguments: {} })
    expect(result.isError).toBe(true)
    expect(textOf(result)).toMatch(/^The echo tool was called with invalid arguments: text: /)
  })

  it("aborts a cancelled call", async () => {
    const abort = new AbortController()
    const call = server.client.callTool(
      { name: "hold", arguments: { marker: "modern" } },
      { signal: abort.signal },
    )
    await until(() => server.stderr().includes("hold modern started"), "the call to start")
    abort.abort()
    await expect(call).rejects.toThrow()
    await until(() => existsSync(join(project.dir, "modern.aborted")), "the tool to see the abort")
  })
})

describe("toolbelt mcp --help", () => {
  let project: Project

  beforeAll(async () => {
    project = await makeProject()
  })

  afterAll(async () => {
    await project?.remove()
  })

  it("shows the options and exits 0", () => {
    const result = spawnSync(process.execPath, [bin, "mcp", "--help"], { encoding: "utf8" })
    expect(result.status).toBe(0)
    expect(result.stdout).toContain("Usage: toolbelt mcp [options]")
    for (const flag of ["--cwd", "--agent", "--http", "--host", "--token", "--no-token", "--socket"])
      expect(result.stdout).toContain(flag)
  })

  it("refuses to bind beyond loopback without a token", () => {
    const result = spawnSync(
      process.execPath,
      [bin, "mcp", "--http", "0", "--host", "0.0.0.0", "--no-token"],
      {
        cwd: project.dir,
        encoding: "utf8",
        env: project.env,
        timeout: 30_000,
      },
    )
    expect(result.status).toBe(2)
    expect(result.stderr).toContain("without a token would let other machines run tools")
  })
})
