// A prompt showing an ask closes when the ask is answered some other way. An MCP client that shows forms
// (the real SDK client, 2025-era elicitation) and never answers: the ask is answered by the engine
// directly, or on a PostgreSQL store through another instance (test/fixtures/postgres.ts; skipped,
// saying why, where none can start); the client's elicitation request is cancelled
// (`notifications/cancelled`) and the call completes. The terminal prompt, on a fake terminal: erased,
// and one line says who answered.
import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PassThrough } from "node:stream"
import {
  Client,
  type ElicitRequestFormParams,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client"
import { describe, expect, it } from "vitest"
import type { PromptEnd } from "../../src/compose/fleet.ts"
import type { AskRequest } from "../../src/runtime/permission/service.ts"
import { promptForPermission } from "../../src/surfaces/cli/prompt.ts"
import { CommandStop } from "../../src/surfaces/cli/stop-signal.ts"
import { BIN, cliEnv } from "../fixtures/cli.ts"
import { postgresOrSkip } from "../fixtures/postgres.ts"
import { hasPty, onTerminal } from "../fixtures/pty.ts"
import { api } from "../serve/helpers.ts"
import { fleet } from "./fixtures/instances.ts"

const pg = await postgresOrSkip()

const { cleanups, served } = fleet()

/** A serve instance (on the store at `store`, else its own SQLite) where `bash` asks. */
const instance = (store?: string) => served({ store, config: { permission: { bash: "ask" } } })

/** An MCP client of `url`'s `/mcp` that shows forms and never answers one; it notes each cancellation. */
async function silentClient(url: string, token: string) {
  const shown: ElicitRequestFormParams[] = []
  const cancelled: string[] = []
  const client = new Client(
    { name: "never-answers", version: "1.0.0" },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: "legacy" } },
  )
  const formShown = Promise.withResolvers<void>()
  client.setRequestHandler("elicitation/create", (request, ctx) => {
    shown.push(request.params as ElicitRequestFormParams)
    formShown.resolve()
    const { signal } = ctx.mcpReq
    return new Promise((_, reject) => {
      signal.addEventListener("abort", () => {
        cancelled.push(String(signal.reason))
        reject(signal.reason)
      })
    })
  })
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  })
  await client.connect(transport, { timeout: 30_000 })
  cleanups.push(() => client.close())
  return { client, shown, cancelled, formShown: formShown.promise }
}

/** Resolves once `check` holds (polled). */
async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`never: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

const bash = (command: string) => ({ name: "bash", arguments: { command, description: "says something" } })

describe("an MCP form for an ask answered some other way", () => {
  it("is cancelled when the engine's reply comes first, and the call completes", async () => {
    const a = await instance()
    const mcp = await silentClient(a.url, a.token)
    const result = mcp.client.callTool(bash("echo answered-by-engine"), { timeout: 60_000 })
    await mcp.formShown
    const [ask] = a.toolbelt.permission.list()
    expect(ask?.patterns).toEqual(["echo answered-by-engine"])
    a.toolbelt.permission.reply({ requestID: ask!.id, reply: "once" })
    const done = await result
    expect(done.isError ?? false).toBe(false)
    expect(JSON.stringify(done.content)).toContain("answered-by-engine")
    await until(() => mcp.cancelled.length === 1, "the client was told the form is cancelled")
    expect(mcp.shown).toHaveLength(1)
  }, 60_000)

  it("a question's form is cancelled when the questions are answered through the library", async () => {
    const a = await instance()
    const mcp = await silentClient(a.url, a.token)
    const question = {
      question: "Which colour?",
      header: "Colour",
      options: [
        { label: "red", description: "warm" },
        { label: "blue", description: "cold" },
      ],
    }
    const result = mcp.client.callTool(
      { name: "question", arguments: { questions: [question] } },
      { timeout: 60_000 },
    )
    await mcp.formShown
    const [asked] = a.toolbelt.questions.list()
    a.toolbelt.questions.reply({ requestID: asked!.id, answers: [["blue"]] })
    const done = await result
    expect(done.isError ?? false).toBe(false)
    expect(JSON.stringify(done.content)).toContain("blue")
    await until(() => mcp.cancelled.length === 1, "the client was told the form is cancelled")
  }, 60_000)
})

describe.skipIf(!pg.server)(`prompts across instances${pg.server ? "" : ` (${pg.reason})`}`, () => {
  it("A's MCP form is cancelled when the ask is answered through B, and A's call completes", async () => {
    const store = await pg.server!.database()
    const a = await instance(store)
    const b = await instance(store)
    const mcp = await silentClient(a.url, a.token)
    const result = mcp.client.callTool(bash("echo answered-on-b"), { timeout: 60_000 })
    await mcp.formShown
    const [ask] = (await api(b.url, "GET", "/api/permissions")).body as { id: string }[]
    const replied = performance.now()
    expect((await api(b.url, "POST", `/api/permissions/${ask!.id}/reply`, { reply: "once" })).status).toBe(
      200,
    )
    const done = await result
    expect(done.isError ?? false).toBe(false)
    expect(JSON.stringify(done.content)).toContain("answered-on-b")
    await until(() => mcp.cancelled.length === 1, "A's client was told the form is cancelled")
    console.log(
      `asks close: A's form cancelled ${Math.round(performance.now() - replied)} ms after B's reply`,
    )
  }, 60_000)
})

describe.skipIf(!pg.server || !hasPty)(
  `a terminal prompt answered on another instance${pg.server ? (hasPty ? "" : " (no pty)") : ` (${pg.reason})`}`,
  () => {
    it("toolbelt call's prompt on a tty closes, says who answered, and the call completes", async () => {
      const store = await pg.server!.database()
      const project = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-asks-close-")))
      const home = await mkdtemp(join(tmpdir(), "toolbelt-asks-close-home-"))
      cleanups.push(() => rm(project, { recursive: true, force: true }))
      cleanups.push(() => rm(home, { recursive: true, force: true }))
      // Reading .env asks (the build agent's default).
      await writeFile(join(project, ".env"), "TOKEN=from-a\n")
      const b = await instance(store)
      const a = onTerminal(
        process.execPath,
        [BIN, "call", "read", JSON.stringify({ filePath: ".env" }), "--store", store],
        { cwd: project, env: cliEnv(home) },
      )
      cleanups.push(async () => a.child.kill())
      await a.waitFor("Allow? ")
      const [ask] = (await api(b.url, "GET", "/api/permissions")).body as { id: string }[]
      expect((await api(b.url, "POST", `/api/permissions/${ask!.id}/reply`, { reply: "once" })).status).toBe(
        200,
      )
      expect(await a.exited).toBe(0)
      const shown = a.screen().slice(a.screen().indexOf("Allow? "))
      expect(shown).toContain("Permission read for ")
      expect(shown).toContain(": answered on another instance: once")
      expect(shown).toContain("TOKEN=from-a")
    }, 90_000)
  },
)

describe("the terminal prompt of an ask that ended elsewhere", () => {
  /** A terminal 40 columns wide: what the prompt writes, and stdin that never types. */
  function fakeTerminal() {
    const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => {} })
    const stderr = Object.assign(new PassThrough(), { isTTY: true, columns: 40 })
    let screen = ""
    stderr.on("data", (chunk: Buffer) => {
      screen += chunk.toString("utf8")
    })
    return { io: { stdin, stderr, stdout: new PassThrough(), env: {}, cwd: "/" }, screen: () => screen }
  }

  const request: AskRequest = {
    sessionID: "ses_t",
    agent: "build",
    permission: "bash",
    patterns: ["echo hi"],
    always: ["echo *"],
    metadata: {},
  }

  it("is erased, and one line says it was answered on another instance and how", async () => {
    const terminal = fakeTerminal()
    const ended = new AbortController()
    const reply = promptForPermission(terminal.io, request, new CommandStop(), ended.signal)
    await until(() => terminal.screen().includes("Allow? "), "the prompt was shown")
    ended.abort({ kind: "permission", outcome: "once", elsewhere: true } satisfies PromptEnd)
    expect(await reply).toEqual({ unanswered: expect.any(String) })
    const screen = terminal.screen()
    // Back up over the header (an empty line, two lines) and the prompt's first row (it wraps on 40
    // columns), then clear from there down.
    const erase = screen.lastIndexOf("\u001b[J")
    expect(erase).toBeGreaterThan(screen.indexOf("Allow? "))
    expect(screen.slice(0, erase).endsWith("\u001b[4A\r")).toBe(true)
    expect(screen.slice(erase + 3)).toBe("Permission bash for echo hi: answered on another instance: once\n")
  })

  it("says withdrawn when the ask ended without an answer from anyone", async () => {
    const terminal = fakeTerminal()
    const ended = new AbortController()
    const reply = promptForPermission(terminal.io, request, new CommandStop(), ended.signal)
    await until(() => terminal.screen().includes("Allow? "), "the prompt was shown")
    ended.abort({ kind: "permission", outcome: "reject", elsewhere: false } satisfies PromptEnd)
    await reply
    expect(terminal.screen()).toMatch(
      /Permission bash for echo hi: withdrawn \(it ended before it was answered here\)\n$/,
    )
  })
})
