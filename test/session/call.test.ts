// The session tools through `toolbelt call`: each call its own process, the session kept by --session;
// questions answered at a real terminal (a pseudo-terminal the test types into).
import { mkdir, mkdtemp, readFile, realpath, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { database, features } from "../../src/runtime/question/fixtures/questions.ts"
import { BIN, cliEnv, runCli } from "../fixtures/cli.ts"
import { hasPty, onTerminal } from "../fixtures/pty.ts"

let project: string
let home: string

beforeEach(async () => {
  project = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-session-call-")))
  home = await mkdtemp(join(tmpdir(), "toolbelt-session-home-"))
})

afterEach(async () => {
  await rm(project, { recursive: true, force: true })
  await rm(home, { recursive: true, force: true })
})

const call = (tool: string, input: unknown, ...flags: string[]) =>
  runCli(["call", tool, JSON.stringify(input), "--json", ...flags], { cwd: project, home })

/** `toolbelt call` on a pseudo-terminal. */
const callOnTerminal = (tool: string, input: unknown, ...flags: string[]) =>
  onTerminal(process.execPath, [BIN, "call", tool, JSON.stringify(input), ...flags], {
    cwd: project,
    env: cliEnv(home),
  })

describe("todowrite and todoread through toolbelt call", () => {
  it("keeps the session's list across processes; another session has its own", () => {
    const todos = [
      { content: "Write the parser", status: "in_progress", priority: "high" },
      { content: "Test it", status: "pending", priority: "medium" },
    ]
    const written = call("todowrite", { todos }, "--session", "ses_cli")
    expect(written.status).toBe(0)
    expect(JSON.parse(written.stdout)).toMatchObject({ status: "completed", title: "2 todos" })

    const read = call("todoread", {}, "--session", "ses_cli")
    expect(read.status).toBe(0)
    expect(JSON.parse(JSON.parse(read.stdout).output)).toEqual([
      { id: "1", content: "Write the parser", status: "in_progress", priority: "high" },
      { id: "2", content: "Test it", status: "pending", priority: "medium" },
    ])
    const other = call("todoread", {}, "--session", "ses_other")
    expect(JSON.parse(other.stdout)).toMatchObject({ status: "completed", output: "[]" })
  })

  it("refuses a status the schema does not know (exit 1)", () => {
    const result = call("todowrite", { todos: [{ content: "x", status: "doing", priority: "high" }] })
    expect(result.status).toBe(1)
    expect(JSON.parse(result.stdout).error).toMatch(/invalid arguments/i)
  })
})

describe("question through toolbelt call", () => {
  it("without a terminal nobody can answer: the call fails saying so", () => {
    const result = call("question", { questions: [database] })
    expect(result.status).toBe(1)
    expect(JSON.parse(result.stdout).error).toContain("stdin is not a terminal")
  })

  it.skipIf(!hasPty)("at a terminal: a numbered choice, asked again after a wrong number", async () => {
    const terminal = callOnTerminal("question", { questions: [database] })
    await terminal.waitFor("Choose: ")
    expect(terminal.screen()).toContain("Question: Database")
    expect(terminal.screen()).toContain("Which database should the cache use?")
    expect(terminal.screen()).toContain("1. SQLite - one file")
    expect(terminal.screen()).toContain("3. Type your own answer")
    expect(terminal.screen()).toContain("0. Dismiss")
    terminal.type("7")
    await terminal.waitFor("Type a number from 1 to 3")
    terminal.type("2")
    expect(await terminal.exited).toBe(0)
    expect(terminal.screen()).toContain('"Which database should the cache use?"="Redis"')
  })

  it.skipIf(!hasPty)(
    "at a terminal: several choices plus one's own answer, then a typed answer",
    async () => {
      const terminal = callOnTerminal("question", { questions: [features, database] })
      await terminal.waitFor("Choose one or more (1-3): ")
      expect(terminal.screen()).toContain("Question 1 of 2: Features")
      terminal.type("1, 3")
      await terminal.waitFor("Your answer: ")
      terminal.type("Cost")
      const mark = terminal.screen().length
      await terminal.waitFor("Question 2 of 2: Database", mark)
      await terminal.waitFor("Choose: ", mark)
      terminal.type("Postgres, please")
      expect(await terminal.exited).toBe(0)
      expect(terminal.screen()).toContain(
        '"Which features matter?"="Speed, Cost", "Which database should the cache use?"="Postgres, please"',
      )
    },
  )

  it.skipIf(!hasPty)("at a terminal: 0 dismisses, and the call fails (exit 1)", async () => {
    const terminal = callOnTerminal("question", { questions: [database] })
    await terminal.waitFor("Choose: ")
    terminal.type("0")
    expect(await terminal.exited).toBe(1)
    expect(terminal.screen()).toContain("The user dismissed this question.")
  })
})

describe("plan mode through toolbelt call --session", () => {
  it.skipIf(!hasPty)(
    "plan_enter switches the session to plan (edits denied but the plan), plan_exit asks at the terminal and switches back",
    async () => {
      const entered = call("plan_enter", {}, "--session", "ses_plan")
      expect(JSON.parse(entered.stdout)).toMatchObject({ status: "completed", metadata: { agent: "plan" } })

      // The next process continuing the session runs as plan.
      const edit = call("write", { filePath: "app.ts", content: "x\n" }, "--session", "ses_plan")
      expect(edit.status).toBe(1)
      expect(JSON.parse(edit.stdout).error).toContain("the plan agent's defaults")
      const plan = "# Plan\n1. Create app.ts exporting y.\n"
      const wrote = call(
        "write",
        { filePath: ".toolbelt/plans/ses_plan.md", content: plan },
        "--session",
        "ses_plan",
      )
      expect(wrote.status).toBe(0)

      const terminal = callOnTerminal("plan_exit", {}, "--session", "ses_plan")
      await terminal.waitFor("Choose: ")
      expect(terminal.screen()).toContain(
        "Plan at .toolbelt/plans/ses_plan.md is complete. Would you like to switch to the build agent and start implementing?",
      )
      // Only the options: no answer of one's own.
      expect(terminal.screen()).not.toContain("Type your own answer")
      terminal.type("1")
      expect(await terminal.exited).toBe(0)
      expect(terminal.screen()).toContain("Create app.ts exporting y.")

      const edited = call(
        "write",
        { filePath: "app.ts", content: "export const y = 1\n" },
        "--session",
        "ses_plan",
      )
      expect(edited.status).toBe(0)
      expect(await readFile(join(project, "app.ts"), "utf8")).toBe("export const y = 1\n")
    },
  )

  it("--agent overrides the session's agent for one call", async () => {
    await mkdir(join(project, "src"))
    call("plan_enter", {}, "--session", "ses_override")
    const asBuild = call(
      "write",
      { filePath: "src/a.ts", content: "a\n" },
      "--session",
      "ses_override",
      "--agent",
      "build",
    )
    expect(asBuild.status).toBe(0)
    const asPlan = call("write", { filePath: "src/b.ts", content: "b\n" }, "--session", "ses_override")
    expect(asPlan.status).toBe(1)
  })
})
