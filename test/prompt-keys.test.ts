// The permission and question prompts of `toolbelt call` and `toolbelt run` on a real pseudo-terminal:
// Ctrl+C stops the command (exit 130, one line, the call recorded as interrupted), Ctrl+D declines
// (exit 1), an answer the prompt does not take is asked again saying what it takes, and a refusal is
// printed once.
import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { openStore } from "../src/platform/store/store.ts"
import { database } from "../src/runtime/question/fixtures/questions.ts"
import { BIN, cliEnv, runCliAsync } from "./fixtures/cli.ts"
import { hasPty, onTerminal, type Terminal } from "./fixtures/pty.ts"
import { type FakeOpenAI, fakeOpenAI, type Reply } from "./run/openai-server.ts"

let project: string
let home: string
let servers: FakeOpenAI[] = []

beforeEach(async () => {
  project = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-prompt-keys-")))
  home = await mkdtemp(join(tmpdir(), "toolbelt-prompt-keys-home-"))
  // Reading .env asks (the build agent's default), so every call below meets the prompt.
  await writeFile(join(project, ".env"), "TOKEN=1\n")
})

afterEach(async () => {
  for (const server of servers) await server.close()
  servers = []
  await rm(project, { recursive: true, force: true })
  await rm(home, { recursive: true, force: true })
})

const ALLOW = "Allow? "
const CTRL_C = "\u0003"
const CTRL_D = "\u0004"
const READ_ENV = JSON.stringify({ filePath: ".env" })

/** `toolbelt <args>` on a pseudo-terminal, in the project. */
const onTty = (...args: string[]): Terminal =>
  onTerminal(process.execPath, [BIN, ...args], { cwd: project, env: cliEnv(home) })

/** What the command printed from `text` on (the prompt and what followed it). */
const after = (terminal: Terminal, text: string) => terminal.screen().slice(terminal.screen().indexOf(text))

/** What a stack, readline's AbortError or Node's report of a promise left waiting would look like. */
function expectNoCrash(screen: string): void {
  expect(screen).not.toMatch(/\n\s+at /)
  expect(screen).not.toContain("AbortError")
  expect(screen).not.toContain("unsettled")
  expect(screen).not.toContain("[toolbelt:bus]")
}

/** The stored tool parts of a session (the store is closed again before the test goes on). */
function storedParts(sessionID: string) {
  const store = openStore({ dataDir: join(home, "data") })
  try {
    return store.parts.list(sessionID)
  } finally {
    store.close()
  }
}

/** How often `text` occurs in `screen`. */
const count = (screen: string, text: string) => screen.split(text).length - 1

/** A scripted model that asks to read .env, then answers; `args` are `--model` and `--base-url` for it. */
async function modelReadingEnv(): Promise<{ args: string[]; server: FakeOpenAI }> {
  const script: Reply[] = [
    { toolCalls: [{ name: "read", arguments: { filePath: ".env" } }] },
    { text: "TOKEN is set." },
  ]
  const server = await fakeOpenAI(script)
  servers.push(server)
  return { args: ["--model", "openai-compatible/test-model", "--base-url", server.baseURL], server }
}

describe.skipIf(!hasPty)("the permission prompt of toolbelt call", () => {
  it("Ctrl+C exits 130 with one line, no stack, and the call recorded as interrupted", async () => {
    const terminal = onTty("call", "read", READ_ENV, "--session", "ses_ctrl_c")
    await terminal.waitFor(ALLOW)
    terminal.child.stdin!.write(CTRL_C)
    expect(await terminal.exited).toBe(130)
    const shown = after(terminal, ALLOW)
    expect(shown).toContain(
      "toolbelt call: interrupted at the permission prompt (Ctrl+C); the call was stopped and is recorded as interrupted.",
    )
    expect(shown).not.toContain("TOKEN=1")
    expect(shown).not.toContain("Error:")
    expectNoCrash(terminal.screen())
    const [part] = storedParts("ses_ctrl_c")
    expect(part?.tool).toBe("read")
    expect(part?.state.status).toBe("error")
    expect(part?.state.status === "error" && part.state.metadata?.interrupted).toBe(true)
  })

  it("Ctrl+D rejects the ask: exit 1, the call fails as rejected by the person, no stack", async () => {
    const terminal = onTty("call", "read", READ_ENV)
    await terminal.waitFor(ALLOW)
    terminal.child.stdin!.write(CTRL_D)
    expect(await terminal.exited).toBe(1)
    const shown = after(terminal, ALLOW)
    expect(shown).toContain("Error: The user rejected permission to use this specific tool call.")
    expect(shown).not.toContain("TOKEN=1")
    expectNoCrash(terminal.screen())
  })

  it("an answer it does not take is asked again, naming the answers it takes", async () => {
    const terminal = onTty("call", "read", READ_ENV)
    await terminal.waitFor(ALLOW)
    const hint = 'Type "o" to allow once, "a" to allow always, "r" to reject, or a reason to reject'
    terminal.type("x")
    await terminal.waitFor(hint)
    const first = terminal.screen().indexOf(hint)
    await terminal.waitFor(ALLOW, first)
    // Enter alone is not an answer either.
    terminal.type("")
    await terminal.waitFor(hint, first + hint.length)
    terminal.type("o")
    expect(await terminal.exited).toBe(0)
    expect(terminal.screen()).toContain("TOKEN=1")
  })

  it("a refusal is printed once, at a terminal and without one", async () => {
    const terminal = onTty("call", "read", READ_ENV)
    await terminal.waitFor(ALLOW)
    terminal.type("r")
    expect(await terminal.exited).toBe(1)
    expect(count(terminal.screen(), "rejected permission")).toBe(1)

    const piped = await runCliAsync(["call", "read", READ_ENV], { cwd: project, home })
    expect(piped.status).toBe(1)
    expect(piped.stdout).toBe("")
    expect(count(piped.stderr, "needs approval")).toBe(1)
    expect(piped.stderr).toContain("cannot ask (stdin is not a terminal and --yes was not given)")
    expect(piped.stderr).toContain("Re-run with --yes")
  })
})

describe.skipIf(!hasPty)("the question prompt of toolbelt call", () => {
  const ask = JSON.stringify({ questions: [database] })

  it("Ctrl+C exits 130 with one line and no stack", async () => {
    const terminal = onTty("call", "question", ask, "--session", "ses_question")
    await terminal.waitFor("Choose: ")
    terminal.child.stdin!.write(CTRL_C)
    expect(await terminal.exited).toBe(130)
    expect(after(terminal, "Choose: ")).toContain(
      "toolbelt call: interrupted at the question prompt (Ctrl+C); the call was stopped and is recorded as interrupted.",
    )
    expectNoCrash(terminal.screen())
    const [part] = storedParts("ses_question")
    expect(part?.state.status === "error" && part.state.metadata?.interrupted).toBe(true)
  })

  it("Ctrl+D dismisses the question: exit 1, no stack", async () => {
    const terminal = onTty("call", "question", ask)
    await terminal.waitFor("Choose: ")
    terminal.child.stdin!.write(CTRL_D)
    expect(await terminal.exited).toBe(1)
    expect(after(terminal, "Choose: ")).toContain("Error: The user dismissed this question")
    expectNoCrash(terminal.screen())
  })
})

describe.skipIf(!hasPty)("the permission prompt of toolbelt run", () => {
  it("Ctrl+C exits 130 with one line, no stack, and the model is not called again", async () => {
    const { args, server } = await modelReadingEnv()
    const terminal = onTty("run", "what is in .env?", ...args)
    await terminal.waitFor(ALLOW)
    terminal.child.stdin!.write(CTRL_C)
    expect(await terminal.exited).toBe(130)
    const shown = after(terminal, ALLOW)
    expect(shown).toMatch(
      /toolbelt run: interrupted at the permission prompt \(Ctrl\+C\); the turn was stopped \(session ses_\w+\)\./,
    )
    expect(shown).not.toContain("TOKEN is set.")
    expectNoCrash(terminal.screen())
    expect(server.requests).toHaveLength(1)
  })

  it("Ctrl+D rejects the ask: the turn stops with exit 1, no stack", async () => {
    const { args, server } = await modelReadingEnv()
    const terminal = onTty("run", "what is in .env?", ...args)
    await terminal.waitFor(ALLOW)
    terminal.child.stdin!.write(CTRL_D)
    expect(await terminal.exited).toBe(1)
    expect(after(terminal, ALLOW)).toContain("✗ read: The user rejected permission")
    expectNoCrash(terminal.screen())
    expect(server.requests).toHaveLength(1)
  })

  it("a refusal is printed once, at a terminal and without one", async () => {
    const { args } = await modelReadingEnv()
    const terminal = onTty("run", "what is in .env?", ...args)
    await terminal.waitFor(ALLOW)
    terminal.type("r")
    expect(await terminal.exited).toBe(1)
    expect(count(terminal.screen(), "rejected permission")).toBe(1)
    expect(terminal.screen()).toContain("toolbelt run: stopped at the call above")

    const piped = await runCliAsync(["run", "what is in .env?", ...(await modelReadingEnv()).args], {
      cwd: project,
      home,
    })
    expect(piped.status).toBe(1)
    expect(count(piped.stderr, "needs approval")).toBe(1)
    expect(piped.stderr).toContain("✗ read: This call needs a person's approval")
    expect(piped.stderr).toContain("toolbelt run: stopped at the call above")
  })
})
