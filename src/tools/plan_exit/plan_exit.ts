import { readFile } from "node:fs/promises"
import { z } from "zod"
import * as Tool from "../../runtime/tool/index.ts"
import { builtinSchema } from "../../runtime/tool/schema-source.ts"
import { services } from "../../runtime/tool/services.ts"
import { QuestionRejectedError } from "../../runtime/tool/session-services.ts"
import { personToAsk, WHERE_SOMEONE_ANSWERS } from "../kit/ask-the-person.ts"
import { loadText } from "../kit/load-text.ts"
import { planPath, shownPlanPath } from "../kit/plan-file.ts"

const parameters = builtinSchema("plan_exit", () => z.object({}))
type Parameters = Tool.SchemaOf<typeof parameters>

export interface PlanExitMetadata extends Record<string, unknown> {
  /** The agent the session runs as from now on. */
  agent: "build"
  /** The plan file (absolute). */
  plan: string
}

/** The built-in agents that are never in plan mode (a custom agent's rules decide for it). */
const OTHER_BUILT_IN_AGENTS = new Set(["build", "general", "explore"])

/** Why plan_exit is not offered (`toolbelt tools` lists them under "Not offered"). */
export const NOT_IN_PLAN_MODE =
  "plan_exit leaves plan mode, and this agent is not in it: it is offered to the plan agent, which plan_enter switches a session to (or --agent plan)"
export const NOBODY_TO_APPROVE =
  "plan_exit asks a person to approve the plan, and no one can answer here: it is offered on a terminal, to MCP clients that show forms, and to library users"

/** The agent that carries out an approved plan. */
const BUILD_AGENT = "build"

/** Why the plan cannot be approved here. */
const NO_APPROVAL =
  "Plan mode cannot be left here: no one can be asked to approve the plan (this runtime has no question flow or keeps no session agents)."

/**
 * The `plan_exit` tool: asks the person to approve the plan, and on yes leaves plan mode.
 *
 * 1. Ask `plan_exit` (pattern and always `*`): the defaults allow it to the plan agent only.
 * 2. The plan file must hold a plan.
 * 3. Ask the person through the question flow: "Plan at <path> is complete. Would you like to switch to
 *    the build agent and start implementing?" (Yes or No, nothing typed). No, or a dismissal, fails the
 *    call and stops the turn: the person says what to change next.
 * 4. Yes: switch the session to the `build` agent (its rules apply from the next call on).
 * 5. Shape: the approval and the plan itself (as the file holds it now), the instruction the build
 *    agent carries out.
 */
export const PlanExitTool = Tool.define<Parameters, PlanExitMetadata>(
  "plan_exit",
  () => ({
    description: loadText(import.meta.url, "description.txt"),
    parameters,
    async execute(_params, ctx) {
      // 1. Ask; someone must be there to approve the plan, and the runtime must keep session agents.
      const askThePerson = await personToAsk(ctx, "plan_exit", NO_APPROVAL)
      const { sessionAgent, worktree, directory } = services(ctx)
      if (!sessionAgent) throw new Tool.ToolFailure(NO_APPROVAL)

      // 2. The plan.
      const plan = planPath(worktree, ctx.sessionID)
      const shown = shownPlanPath(directory, plan)
      const text = await readFile(plan, "utf8").catch(() => "")
      if (!text.trim())
        throw new Tool.ToolFailure(
          `There is no plan at ${shown} yet: write the plan there, then call plan_exit.`,
        )

      // 3. The person's approval.
      const [answer] = await askThePerson([
        {
          question: `Plan at ${shown} is complete. Would you like to switch to the build agent and start implementing?`,
          header: "Build Agent",
          options: [
            { label: "Yes", description: "Switch to the build agent and carry out the plan" },
            { label: "No", description: "Stay in plan mode and keep working on the plan" },
          ],
          custom: false,
        },
      ])
      if (answer?.[0] !== "Yes")
        throw new QuestionRejectedError(
          `The user did not approve the plan at ${shown}: the session stays in plan mode. Wait for the user to say what to change.`,
        )

      // 4. Switch.
      sessionAgent.switch(ctx.sessionID, BUILD_AGENT)

      // 5. Shape. Read again: the person may have edited the plan while deciding.
      const approved = (await readFile(plan, "utf8").catch(() => text)).trim()
      return {
        title: "Plan approved",
        output: `The user approved the plan at ${shown}. You are the build agent again and can edit files. Carry out the plan:\n\n${approved}`,
        metadata: { agent: BUILD_AGENT, plan },
      }
    },
  }),
  {
    ...WHERE_SOMEONE_ANSWERS,
    available: (env) => {
      if (env.interactive === false) return { reason: NOBODY_TO_APPROVE }
      if (env.agent !== undefined && OTHER_BUILT_IN_AGENTS.has(env.agent)) return { reason: NOT_IN_PLAN_MODE }
      return true
    },
  },
)
