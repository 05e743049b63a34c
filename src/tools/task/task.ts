import { z } from "zod"
import * as Tool from "../../runtime/tool/index.ts"
import { builtinSchema } from "../../runtime/tool/schema-source.ts"
import { services } from "../../runtime/tool/services.ts"
import type { SubagentInfo, SubagentOutcome, SubagentProgress } from "../../runtime/tool/subagent-services.ts"
import { loadText } from "../kit/load-text.ts"

/** The parameters' fields without `background`, which is offered when background runs are turned on. */
const baseFields = () => ({
  description: z.string().describe("What the task is, in 3-5 words"),
  prompt: z
    .string()
    .describe("The complete brief for the subagent: what to do, what you know, what to give back"),
  subagent_type: z.string().describe("The agent to run the task as (one of the agent types listed above)"),
  task_id: z
    .string()
    .optional()
    .describe("The task_id of an earlier result, to continue that subagent's session and its history"),
})

/** The parameters, and those when background runs are turned on (each built on first use). */
const foreground = builtinSchema("task", () => z.object(baseFields()))
const background = builtinSchema("task.background", () =>
  z.object({
    ...baseFields(),
    background: z
      .boolean()
      .optional()
      .describe(
        "Run it in the background: this call returns at once with the task_id, and the result comes to you in a later message",
      ),
  }),
)
type BackgroundParameters = Tool.SchemaOf<typeof background>

type Params = z.output<BackgroundParameters>

export interface TaskMetadata extends Record<string, unknown> {
  /** The child session. */
  sessionId?: string
  parentSessionId: string
  agent: string
  /** `provider/model-id`. */
  model?: string
  /** The child's latest tool call, while it runs. */
  latest?: SubagentProgress["latest"]
  /** How many tool calls the child made. */
  calls?: number
  background?: boolean
}

const BACKGROUND_NOTE =
  "\n- With background: true the call returns at once with a task_id, and the subagent's result reaches you in a later message; call again with that task_id to see whether it is still running."

/** What the description says of an agent nobody described. */
const UNDESCRIBED = "(no description: use it only when the user asks for it)"

/** The tool's description: what it does, then the agent types the calling agent may start. */
export function describeTask(agents: readonly SubagentInfo[], options: { background: boolean }): string {
  const list = agents.length
    ? agents
        .map(
          (agent) =>
            `- ${agent.name}: ${agent.described ? agent.description.replace(/\s+/g, " ") : UNDESCRIBED}`,
        )
        .join("\n")
    : "(none: no agent may be started as a subagent here)"
  return loadText(import.meta.url, "description.txt")
    .replace("{background}", options.background ? BACKGROUND_NOTE : "")
    .replace("{agents}", list)
}

/** The subagent's answer as the model gets it (opencode's shape). */
export function renderOutcome(outcome: SubagentOutcome): string {
  const open = (state: string) => `<task id="${outcome.sessionID}" state="${state}">`
  switch (outcome.status) {
    case "completed":
      return `${open("completed")}\n<task_result>\n${outcome.text}\n</task_result>\n</task>`
    case "running":
      return `${open("running")}\n<summary>${outcome.summary}</summary>\n</task>`
    case "error":
      return `${open("error")}\n<task_error>\n${outcome.error}\n</task_error>\n</task>`
  }
}

/**
 * Starts a subagent on a child session and returns its answer. Offered only where a model runs the turn
 * and the runtime can run subagents (not to `toolbelt call`, nor to an MCP client that cannot sample).
 *
 * 1. `background` only where it is turned on.
 * 2. The depth limit: a session as deep as `subagent_depth` allows starts none.
 * 3. Ask `task` for the agent type (always: every type).
 * 4. The agent must exist and not be primary-only.
 * 5. Run it (`subagents` service): a new child session, or the one `task_id` names; the child's calls
 *    are parts of its own session, and this call's metadata names the session and its latest call.
 * 6. The answer as `<task id=... state="completed"><task_result>…`; a failed child as `<task_error>`
 *    (a tool error); a background run as `state="running"`.
 */
export const TaskTool = Tool.define<BackgroundParameters, TaskMetadata>(
  "task",
  async (init) => {
    const subagents = services({ extra: init?.extra ?? {} }).subagents
    const inBackground = subagents?.background ?? false
    const agent = init?.agent?.name ?? "build"
    return {
      description: describeTask(subagents?.available(agent) ?? [], { background: inBackground }),
      parameters: (inBackground ? background : foreground) as Tool.SchemaSource<BackgroundParameters>,
      async execute(params: Params, ctx) {
        const { subagents: runner, model } = services(ctx)
        if (!runner || !model)
          throw new Tool.ToolFailure(
            "Subagents need a model: this call was made without one (toolbelt call).",
          )

        // 1. Background.
        if (params.background && !runner.background)
          throw new Tool.ToolFailure(
            'Background subagents are turned off: set "background_subagents": true in toolbelt.json to use background: true.',
          )

        // 2. Depth.
        if (runner.depth(ctx.sessionID) >= runner.maxDepth)
          throw new Tool.ToolFailure(
            `Subagent depth limit reached (${runner.maxDepth}). Increase "subagent_depth" to allow nested subagents.`,
          )

        // 3. Permission.
        await ctx.ask({
          permission: "task",
          patterns: [params.subagent_type],
          always: ["*"],
          metadata: { description: params.description, subagent_type: params.subagent_type },
        })

        // 4. The agent.
        const chosen = runner.agent(params.subagent_type)
        if (!chosen || chosen.mode === "primary") {
          const names = runner.available(ctx.agent).map((each) => each.name)
          const remedy = names.length
            ? `Use one of: ${names.join(", ")}.`
            : `No agent may be started as a subagent here: define one with "mode": "subagent" in the "agent" key of toolbelt.json, or allow it in the caller's "task" rules.`
          throw new Tool.ToolFailure(
            `Unknown agent type: ${params.subagent_type} is not a valid agent type. ${remedy}`,
          )
        }

        // 5. Run.
        const metadata: TaskMetadata = {
          parentSessionId: ctx.sessionID,
          agent: chosen.name,
          ...(params.background ? { background: true } : {}),
        }
        ctx.metadata({ title: params.description, metadata })
        const outcome = await runner.run({
          agent: chosen.name,
          description: params.description,
          prompt: params.prompt,
          ...(params.task_id ? { taskID: params.task_id } : {}),
          background: params.background === true,
          parent: {
            sessionID: ctx.sessionID,
            messageID: ctx.messageID,
            callID: ctx.callID,
            agent: ctx.agent,
          },
          model,
          abort: ctx.abort,
          progress: (progress) => {
            Object.assign(metadata, {
              sessionId: progress.sessionID,
              model: progress.model,
              calls: progress.calls,
              ...(progress.latest ? { latest: progress.latest } : {}),
            })
            // The title follows the subagent's latest call, so every surface shows where it is.
            const latest = progress.latest
            const title = latest
              ? `${params.description}: ${latest.tool}${latest.title ? ` ${latest.title}` : ""}`
              : params.description
            ctx.metadata({ title, metadata: { ...metadata } })
          },
        })

        // 6. The answer.
        const final = { ...metadata, sessionId: outcome.sessionID }
        if (outcome.status === "error")
          throw new Tool.ToolFailure(renderOutcome(outcome), { metadata: final })
        return { title: params.description, output: renderOutcome(outcome), metadata: final }
      },
    }
  },
  {
    // Only where a model runs the turn and the runtime can start subagents.
    available: (env) => {
      const offered = services({ extra: env.extra ?? {} })
      if (!offered.subagents) return false
      if (offered.model) return true
      return {
        reason:
          "subagents need a model: task is offered in toolbelt run, to agent loops built on the library, and to MCP clients that can sample",
      }
    },
  },
)
