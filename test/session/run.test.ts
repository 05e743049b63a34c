// The session tools through `toolbelt run` against the scripted loopback model server: the todo list a
// model writes, which tools are offered with and without a terminal, and plan mode across two turns.
import { access, readFile } from "node:fs/promises"
import { join } from "node:path"
import { expect, it } from "vitest"
import { BIN, cliEnv, runCli, runCliAsync } from "../fixtures/cli.ts"
import { hasPty, onTerminal } from "../fixtures/pty.ts"
import { scriptedRuns } from "../run/scripted-runs.ts"

const runs = scriptedRuns("session-run")
const { serve, model } = runs

/** `toolbelt run` without a terminal (stdin is an empty pipe). */
const run = (args: string[]) =>
  runCliAsync(["run", ...args], { cwd: runs.project(), home: runs.home(), input: "" })

const offered = (request: any): string[] => request.tools.map((tool: any) => tool.function.name)

it("a model keeps its todo list in the session; without a terminal question and plan_exit are not offered", async () => {
  const todos = [
    { content: "Read the code", status: "completed", priority: "high" },
    { content: "Fix the bug", status: "in_progress", priority: "high" },
  ]
  const { baseURL, requests } = await serve([
    { toolCalls: [{ name: "todowrite", arguments: { todos } }] },
    { text: "Working on it." },
  ])
  const result = await run(["fix the bug", "--session", "ses_todo", ...model(baseURL)])
  expect(result.status).toBe(0)
  expect(result.stderr).toContain("✓ todowrite 1 todo")

  const tools = offered(requests[0])
  expect(tools).toEqual(expect.arrayContaining(["todowrite", "todoread", "plan_enter"]))
  expect(tools).not.toContain("question")
  expect(tools).not.toContain("plan_exit")
  const result1 = requests[1].messages.find((message: any) => message.role === "tool")
  expect(JSON.parse(result1.content)).toEqual([
    { id: "1", ...todos[0] },
    { id: "2", ...todos[1] },
  ])

  // The list outlives the process: another command reads it from the session.
  const read = runCli(["call", "todoread", "{}", "--json", "--session", "ses_todo"], {
    cwd: runs.project(),
    home: runs.home(),
  })
  expect(JSON.parse(JSON.parse(read.stdout).output)).toHaveLength(2)
})

it.skipIf(!hasPty)(
  "plan mode across two turns: plan_enter and the plan in the first, approval at the terminal and the build in the second",
  async () => {
    const plan = "# Plan\n1. Create app.ts exporting answer = 42.\n"
    const planFile = ".toolbelt/plans/ses_plan.md"
    const { baseURL, requests } = await serve([
      // Turn 1, as build: enter plan mode.
      { toolCalls: [{ name: "plan_enter", arguments: {} }] },
      // Still turn 1, as plan: a change to the project is denied, the plan file is written.
      {
        toolCalls: [
          { name: "write", arguments: { filePath: "app.ts", content: "too early\n" } },
          { name: "write", arguments: { filePath: planFile, content: plan } },
        ],
      },
      { text: "The plan is ready for your review." },
      // Turn 2, as plan: ask to leave plan mode.
      { toolCalls: [{ name: "plan_exit", arguments: {} }] },
      // Still turn 2, as build: carry out the plan.
      {
        toolCalls: [
          { name: "write", arguments: { filePath: "app.ts", content: "export const answer = 42\n" } },
        ],
      },
      { text: "Done: app.ts exports answer." },
    ])

    // Turn 1 (no terminal needed).
    const first = await run(["plan how to add app.ts", "--session", "ses_plan", ...model(baseURL)])
    expect(first.status).toBe(0)
    expect(first.stdout).toContain("The plan is ready for your review.")
    expect(first.stderr).toContain(
      "the session runs as the plan agent now; continue it with --session ses_plan",
    )
    expect(offered(requests[0])).toContain("plan_enter")
    // After the switch the model is called again, with the plan agent's tools.
    expect(offered(requests[1])).not.toContain("plan_enter")
    const denied = requests[2].messages.filter((message: any) => message.role === "tool")
    expect(JSON.stringify(denied)).toContain("the plan agent's defaults")
    await expect(access(join(runs.project(), "app.ts"))).rejects.toThrow()
    expect(await readFile(join(runs.project(), planFile), "utf8")).toBe(plan)

    // Turn 2, at a terminal: the session still runs as plan; the person approves the plan.
    const terminal = onTerminal(
      process.execPath,
      [BIN, "run", "go ahead", "--session", "ses_plan", ...model(baseURL)],
      {
        cwd: runs.project(),
        env: cliEnv(runs.home()),
      },
    )
    await terminal.waitFor("Choose: ")
    expect(terminal.screen()).toContain(
      `Plan at ${planFile} is complete. Would you like to switch to the build agent and start implementing?`,
    )
    expect(offered(requests[3])).toContain("plan_exit")
    expect(offered(requests[3])).not.toContain("plan_enter")
    terminal.type("1")
    expect(await terminal.exited).toBe(0)
    expect(terminal.screen()).toContain("Done: app.ts exports answer.")
    expect(terminal.screen()).toContain("the session runs as the build agent now")

    // The build agent got the plan as its instruction, and its tools.
    const approval = requests[4].messages.filter((message: any) => message.role === "tool").at(-1)
    expect(approval.content).toContain("The user approved the plan at .toolbelt/plans/ses_plan.md.")
    expect(approval.content).toContain("Create app.ts exporting answer = 42.")
    expect(offered(requests[4])).toContain("plan_enter")
    expect(await readFile(join(runs.project(), "app.ts"), "utf8")).toBe("export const answer = 42\n")
    expect(requests).toHaveLength(6)
  },
)
