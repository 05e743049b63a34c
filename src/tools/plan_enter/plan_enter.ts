import { stat } from "node:fs/promises"
import { z } from "zod"
import * as Tool from "../../runtime/tool/index.ts"
import { builtinSchema } from "../../runtime/tool/schema-source.ts"
import { services } from "../../runtime/tool/services.ts"
import { loadText } from "../kit/load-text.ts"
import { planPath, shownPlanPath } from "../kit/plan-file.ts"

const parameters = builtinSchema("plan_enter", () => z.object({}))
type Parameters = Tool.SchemaOf<typeof parameters>

export interface PlanEnterMetadata extends Record<string, unknown> {
  /** The agent the session runs as from now on. */
  agent: "plan"
  /** The agent it ran as before. */
  previous: string
  /** The plan file (absolute). */
  plan: string
}

/** The agent of plan mode: may read and search, may edit only plan files (runtime/permission/agents). */
const PLAN_AGENT = "plan"

/**
 * The `plan_enter` tool: switches the session to plan mode.
 *
 * 1. Ask `plan_enter` (pattern and always `*`): the defaults allow it to the build agent only.
 * 2. Switch the session to the `plan` agent; its rules apply from the next call on, in any process
 *    that continues the session.
 * 3. Shape: what plan mode allows, the plan file (`.toolbelt/plans/<session>.md`; said when it exists
 *    already), and that plan_exit ends it.
 */
export const PlanEnterTool = Tool.define<Parameters, PlanEnterMetadata>("plan_enter", () => ({
  description: loadText(import.meta.url, "description.txt"),
  parameters,
  async execute(_params, ctx) {
    // 1. Ask.
    await ctx.ask({ permission: "plan_enter", patterns: ["*"], always: ["*"], metadata: {} })

    // 2. Switch.
    const { sessionAgent, worktree, directory } = services(ctx)
    if (!sessionAgent)
      throw new Tool.ToolFailure(
        "Plan mode is not available here (this runtime keeps no session agents). Call plan_enter inside a toolbelt (toolbelt mcp, serve or run, or createToolbelt), which keeps them.",
      )
    const plan = planPath(worktree, ctx.sessionID)
    const exists = await stat(plan).then(
      (stats) => stats.isFile(),
      () => false,
    )
    sessionAgent.switch(ctx.sessionID, PLAN_AGENT)

    // 3. Shape.
    const shown = shownPlanPath(directory, plan)
    return {
      title: "Plan mode",
      output: [
        "Plan mode is on: you are now the plan agent. You may read and search the project, but not change it,",
        `except for the plan file: ${shown}${exists ? " (it exists already: read it first, then update it)" : ""}.`,
        "Write the plan there: the goal, the steps, the files to change, and how to check the result.",
        "When the plan is complete, call plan_exit to ask the user to approve it.",
      ].join("\n"),
      metadata: { agent: PLAN_AGENT, previous: ctx.agent, plan },
    }
  },
}))
