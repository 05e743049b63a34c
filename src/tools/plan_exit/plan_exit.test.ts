import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, expect, it } from "vitest"
import { internals } from "../../compose/internals.ts"
import { createToolbelt, type Toolbelt } from "../../compose/toolbelt.ts"
import type { QuestionReply, QuestionRequest } from "../../runtime/question/question.ts"

let dir: string
let toolbelt: Toolbelt
let reply: QuestionReply
const asked: QuestionRequest[] = []

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-plan-exit-")))
  asked.length = 0
  toolbelt = await createToolbelt({
    directory: dir,
    dataDir: join(dir, ".data"),
    config: {},
    sweep: false,
    answer: async (request) => {
      asked.push(request)
      return reply
    },
  })
})

afterEach(async () => {
  await toolbelt.close()
  await rm(dir, { recursive: true, force: true })
})

async function inPlanMode(sessionID: string, plan?: string): Promise<void> {
  expect((await toolbelt.call({ tool: "plan_enter", input: {}, sessionID })).status).toBe("completed")
  if (plan === undefined) return
  await mkdir(join(dir, ".toolbelt", "plans"), { recursive: true })
  await writeFile(join(dir, ".toolbelt", "plans", `${sessionID}.md`), plan)
}

it("asks the person, and on yes switches back to build with the plan as the instruction", async () => {
  await inPlanMode("ses_yes", "# Plan\n1. Rename x to y.\n")
  reply = [["Yes"]]
  const result = await toolbelt.call({ tool: "plan_exit", input: {}, sessionID: "ses_yes" })
  expect(asked).toHaveLength(1)
  expect(asked[0]!.questions).toEqual([
    {
      question:
        "Plan at .toolbelt/plans/ses_yes.md is complete. Would you like to switch to the build agent and start implementing?",
      header: "Build Agent",
      options: [
        { label: "Yes", description: "Switch to the build agent and carry out the plan" },
        { label: "No", description: "Stay in plan mode and keep working on the plan" },
      ],
      custom: false,
    },
  ])
  expect(result).toMatchObject({ status: "completed", title: "Plan approved", metadata: { agent: "build" } })
  expect(result.status === "completed" && result.output).toBe(
    "The user approved the plan at .toolbelt/plans/ses_yes.md. You are the build agent again and can edit files. Carry out the plan:\n\n# Plan\n1. Rename x to y.",
  )
  expect(internals(toolbelt).store.sessionAgents.get("ses_yes")).toBe("build")
  // Build's rules again: the project can be edited.
  const edit = await toolbelt.call({
    tool: "write",
    input: { filePath: "y.ts", content: "export const y = 1\n" },
    sessionID: "ses_yes",
  })
  expect(edit.status).toBe("completed")
})

it("on no, or a dismissal, stays in plan mode and stops the turn", async () => {
  await inPlanMode("ses_no", "# Plan\n")
  for (const answer of [[["No"]], "dismiss"] as const) {
    reply = answer
    const result = await toolbelt.call({ tool: "plan_exit", input: {}, sessionID: "ses_no" })
    expect(result).toMatchObject({ status: "error", kind: "question", blocked: true })
    expect(internals(toolbelt).store.sessionAgents.get("ses_no")).toBe("plan")
  }
})

it("refuses to ask before the plan is written, and is offered to the plan agent only where someone can answer", async () => {
  await inPlanMode("ses_empty")
  reply = [["Yes"]]
  const result = await toolbelt.call({ tool: "plan_exit", input: {}, sessionID: "ses_empty" })
  expect(result).toMatchObject({ status: "error", kind: "failure" })
  expect(result.status === "error" && result.error).toBe(
    "There is no plan at .toolbelt/plans/ses_empty.md yet: write the plan there, then call plan_exit.",
  )
  expect(asked).toEqual([])
  const names = async (agent: string, interactive?: boolean) =>
    (await toolbelt.tools({ agent, ...(interactive === undefined ? {} : { interactive }) })).map(
      (t) => t.name,
    )
  expect(await names("plan", true)).toContain("plan_exit")
  expect(await names("plan", false)).not.toContain("plan_exit")
  expect(await names("build", true)).not.toContain("plan_exit")
})
