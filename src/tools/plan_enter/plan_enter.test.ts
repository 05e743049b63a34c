import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, expect, it } from "vitest"
import { internals } from "../../compose/internals.ts"
import { createToolbelt, type Toolbelt } from "../../compose/toolbelt.ts"
import { planPath } from "../kit/plan-file.ts"

let dir: string
let toolbelt: Toolbelt

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-plan-enter-")))
  await writeFile(join(dir, "app.ts"), "export const x = 1\n")
  toolbelt = await createToolbelt({ directory: dir, dataDir: join(dir, ".data"), config: {}, sweep: false })
})

afterEach(async () => {
  await toolbelt.close()
  await rm(dir, { recursive: true, force: true })
})

it("switches the session to the plan agent, whose rules apply from the next call on", async () => {
  const result = await toolbelt.call({ tool: "plan_enter", input: {}, sessionID: "ses_p" })
  expect(result).toMatchObject({
    status: "completed",
    title: "Plan mode",
    metadata: { agent: "plan", previous: "build", plan: join(dir, ".toolbelt", "plans", "ses_p.md") },
  })
  expect(result.status === "completed" && result.output).toContain("plan file: .toolbelt/plans/ses_p.md.")
  expect(internals(toolbelt).store.sessionAgents.get("ses_p")).toBe("plan")

  // The next call of the session runs as plan: no edits but the plan file.
  const edit = await toolbelt.call({
    tool: "write",
    input: { filePath: "notes.md", content: "x" },
    sessionID: "ses_p",
  })
  expect(edit).toMatchObject({ status: "error", kind: "permission" })
  const plan = await toolbelt.call({
    tool: "write",
    input: { filePath: ".toolbelt/plans/ses_p.md", content: "# Plan\n" },
    sessionID: "ses_p",
  })
  expect(plan.status).toBe("completed")
  // Another session is not affected.
  const other = await toolbelt.call({ tool: "write", input: { filePath: "notes.md", content: "x" } })
  expect(other.status).toBe("completed")
})

it("says when the plan file exists already, and is offered to build only", async () => {
  await mkdir(join(dir, ".toolbelt", "plans"), { recursive: true })
  await writeFile(join(dir, ".toolbelt", "plans", "ses_again.md"), "# Old plan\n")
  const result = await toolbelt.call({ tool: "plan_enter", input: {}, sessionID: "ses_again" })
  expect(result.status === "completed" && result.output).toContain("it exists already: read it first")
  const names = async (agent: string) => (await toolbelt.tools({ agent })).map((tool) => tool.name)
  expect(await names("build")).toContain("plan_enter")
  expect(await names("plan")).not.toContain("plan_enter")
  // Called in plan mode anyway: the plan agent's rules deny it.
  const twice = await toolbelt.call({ tool: "plan_enter", input: {}, sessionID: "ses_again" })
  expect(twice).toMatchObject({ status: "error", kind: "permission" })
})

it("keeps the plan file inside the plans folder whatever the session id", () => {
  expect(planPath("/repo", "ses_1")).toBe("/repo/.toolbelt/plans/ses_1.md")
  expect(planPath("/repo", "../../etc/passwd")).toBe("/repo/.toolbelt/plans/______etc_passwd.md")
  expect(planPath("/repo", "")).toBe("/repo/.toolbelt/plans/_.md")
})
