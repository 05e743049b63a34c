// The trust prompt on a real pseudo-terminal: a project that brings a tool file, first used at a
// terminal, asks; the answer decides whether the tool runs and whether the trust is remembered.
import { existsSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { BIN, runCli } from "../fixtures/cli.ts"
import { hasPty, onTerminal, type Terminal } from "../fixtures/pty.ts"
import { type TrustProject, trustProject } from "./project.ts"

let project: TrustProject

beforeEach(async () => {
  project = await trustProject()
})

afterEach(async () => {
  await project.remove()
})

const PROMPT = "Trust it? "

/** `toolbelt <args>` on a pseudo-terminal, in the project. */
const onTty = (...args: string[]): Terminal =>
  onTerminal(process.execPath, [BIN, ...args], { cwd: project.dir, env: project.env })

const storedDirectories = async (): Promise<string[]> =>
  existsSync(project.storeFile)
    ? JSON.parse(await readFile(project.storeFile, "utf8")).projects.map(
        (entry: { directory: string }) => entry.directory,
      )
    : []

describe.skipIf(!hasPty)("the trust prompt at a terminal", () => {
  it("shows what the project would run; trust and remember: the tool runs, and the next call does not ask", async () => {
    const terminal = onTty("call", "hello")
    await terminal.waitFor(PROMPT)
    expect(terminal.screen()).toContain(`${project.dir} is not trusted`)
    expect(terminal.screen()).toContain("tool file .toolbelt/tools/hello.ts")
    terminal.type("t")
    expect(await terminal.exited).toBe(0)
    expect(terminal.screen()).toContain("hello from the project tool")
    expect(existsSync(project.ranMarker)).toBe(true)
    expect(await storedDirectories()).toEqual([project.dir])

    // Remembered: the next call runs it without asking, even without a terminal.
    const next = runCli(["call", "hello"], { cwd: project.dir, home: project.home })
    expect(next.status).toBe(0)
    expect(next.stdout).toBe("hello from the project tool\n")
  })

  it("trust once: the tool runs, and nothing is remembered", async () => {
    const terminal = onTty("call", "hello")
    await terminal.waitFor(PROMPT)
    terminal.type("o")
    expect(await terminal.exited).toBe(0)
    expect(existsSync(project.ranMarker)).toBe(true)
    expect(await storedDirectories()).toEqual([])
  })

  it("no (Enter, the default): the tool does not run, and the error names the trust command", async () => {
    const terminal = onTty("call", "hello")
    await terminal.waitFor(PROMPT)
    terminal.type("")
    expect(await terminal.exited).toBe(2)
    expect(terminal.screen()).toContain(`toolbelt trust ${project.dir}`)
    expect(existsSync(project.ranMarker)).toBe(false)
    expect(await storedDirectories()).toEqual([])
  })

  it("asks again after an answer it does not know", async () => {
    const terminal = onTty("tools")
    await terminal.waitFor(PROMPT)
    terminal.type("maybe")
    await terminal.waitFor('Type "t" to trust and remember')
    terminal.type("n")
    expect(await terminal.exited).toBe(0)
    expect(terminal.screen()).toContain("Not run until you trust this project:")
  })

  it.each([
    ["Ctrl+C", "\u0003"],
    ["Ctrl+D", "\u0004"],
  ])("%s ends the command with 130, one line, no stack trace, nothing run", async (_key, code) => {
    const terminal = onTty("call", "hello")
    await terminal.waitFor(PROMPT)
    terminal.child.stdin!.write(code)
    expect(await terminal.exited).toBe(130)
    const after = terminal.screen().slice(terminal.screen().indexOf(PROMPT))
    expect(after).toContain("toolbelt call: interrupted at the trust prompt; nothing from the project ran.")
    expect(after).not.toMatch(/\n\s+at /)
    expect(existsSync(project.ranMarker)).toBe(false)
    expect(await storedDirectories()).toEqual([])
  })

  it("a project that brings nothing to run never asks", async () => {
    const terminal = onTerminal(process.execPath, [BIN, "call", "read", '{"filePath":"notes.txt"}'], {
      cwd: project.home,
      env: project.env,
    })
    // read of a missing file in the home: what matters is that it ends without a prompt.
    await terminal.exited
    expect(terminal.screen()).not.toContain(PROMPT)
  })
})

describe("without a terminal", () => {
  it("nobody is asked: the call goes on untrusted", () => {
    const call = runCli(["call", "hello"], { cwd: project.dir, home: project.home })
    expect(call.status).toBe(2)
    expect(call.stderr).not.toContain(PROMPT)
    expect(existsSync(project.ranMarker)).toBe(false)
  })
})
