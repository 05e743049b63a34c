// One subagent's turn: its model, the agent loop in its child session, and what the caller is told.

import type { ToolHost } from "../adapters/ai/host.ts"
import type { ModelObject } from "../adapters/ai/tools.ts"
import { killSessionJobs } from "../platform/shell/jobs/index.ts"
import { asSentence } from "../platform/text/sentence.ts"
import type { Bus } from "../runtime/bus/bus.ts"
import type { Agent } from "../runtime/permission/agents/agent.ts"
import {
  LoopGuardError,
  PermissionRejectedError,
  PermissionUnansweredError,
  refusalOf,
} from "../runtime/permission/errors.ts"
import type {
  SubagentOutcome,
  SubagentProgress,
  SubagentRequest,
  TurnModel,
} from "../runtime/tool/subagent-services.ts"
import type { SubagentSessions } from "./subagent-sessions.ts"

/** Told to every subagent after its own instructions. */
const SUBAGENT_NOTE =
  "You are a subagent: another agent gave you this task, and your last message is the answer it gets. Make that message complete on its own: what you found or did, and anything left undone."

/** What a turn needs from the toolbelt it runs in. */
export interface TurnPlace {
  readonly directory: string
  readonly bus: Bus
  readonly sessions: SubagentSessions
  readonly env: NodeJS.ProcessEnv
  /** The toolbelt the turn's calls run on. */
  readonly host: () => ToolHost
}

/**
 * Runs `agent`'s turn for `request` in the child session `sessionID`:
 * 1. the model: the agent's own, else the caller's;
 * 2. a turn of the agent loop, as the agent, with its prompt, each of the child's calls reported through
 *    `progress` as it moves;
 * 3. the child's background jobs killed when the turn ends;
 * 4. the outcome: its last text, or why it failed; a child refused (by a person, no one, the loop guard)
 *    throws, so the caller stops too, saying who.
 */
export async function runSubagentTurn(
  place: TurnPlace,
  request: SubagentRequest,
  agent: Agent,
  sessionID: string,
  signal: AbortSignal,
  progress: (latest: SubagentProgress) => void,
): Promise<SubagentOutcome> {
  const { directory, bus, sessions, env, host } = place
  // 1. The model.
  let model: { model: ModelObject; providerID: string; modelID: string }
  try {
    model = await modelFor(agent, request.model, env)
  } catch (error) {
    return { status: "error", sessionID, error: (error as Error).message }
  }
  const modelName = `${model.providerID}/${model.modelID}`

  // 2. The turn, its calls reported as they move.
  const calls = new Set<string>()
  const report = (latest?: SubagentProgress["latest"]) =>
    progress({
      sessionID,
      agent: agent.name,
      model: modelName,
      calls: calls.size,
      ...(latest ? { latest } : {}),
    })
  const stopFollowing = bus.subscribe("message.part.updated", (event) => {
    const { part } = event.properties
    if (part.sessionID !== sessionID) return
    calls.add(part.callID)
    const title = "title" in part.state ? part.state.title : undefined
    report({ tool: part.tool, status: part.state.status, ...(title ? { title } : {}) })
  })
  const stopRunning = sessions.running(sessionID, {
    agent: agent.name,
    description: request.description,
    parent: { sessionID: request.parent.sessionID, callID: request.parent.callID },
  })
  report()
  const { runTurn, defaultInstructions } = await import("../adapters/ai/loop.ts")
  let result: Awaited<ReturnType<typeof runTurn>>
  try {
    result = await runTurn({
      toolbelt: host(),
      model,
      prompt: request.prompt,
      sessionID,
      agent: agent.name,
      abort: signal,
      instructions: instructionsFor(agent, defaultInstructions(directory), directory),
      ...(agent.steps ? { steps: agent.steps } : {}),
    })
  } finally {
    stopRunning()
    stopFollowing()
    // 3. Its processes end with its turn.
    await killSessionJobs(sessionID)
  }

  // 4. The outcome.
  switch (result.status) {
    case "finished":
      return {
        status: "completed",
        sessionID,
        text: result.text.trim() || "(The subagent ended without a final message.)",
      }
    case "failed":
      return { status: "error", sessionID, error: `The subagent's model failed: ${result.error}` }
    case "aborted":
      throw signal.reason ?? new Error("The subagent was aborted.")
    case "blocked":
      throw refusal(result.error ?? "", agent.name, request.description)
  }
}

/** The model a subagent runs on: its agent's own (`provider/model-id`), else the calling turn's. */
async function modelFor(
  agent: Agent,
  caller: TurnModel,
  env: NodeJS.ProcessEnv,
): Promise<{ model: ModelObject; providerID: string; modelID: string }> {
  const inherited = {
    model: caller.model as ModelObject,
    providerID: caller.providerID,
    modelID: caller.modelID,
  }
  if (!agent.model) return inherited
  const { preferredModel } = await import("../adapters/ai/sampling-model.ts")
  // Over MCP sampling the client owns the models: the agent's is asked for as a preference.
  const preferred = preferredModel(inherited, agent.model)
  if (preferred) return preferred
  const { resolveModel } = await import("../adapters/ai/provider.ts")
  try {
    return resolveModel({ spec: agent.model, env })
  } catch (error) {
    throw new Error(
      `The ${agent.name} agent runs on ${agent.model}, which cannot be used here: ${asSentence((error as Error).message)}`,
    )
  }
}

/** The agent's own prompt (with where the project is), else the default instructions; then the note. */
function instructionsFor(agent: Agent, defaults: string, directory: string): string {
  const own = agent.prompt
    ? `${agent.prompt}\n\nThe project is at ${directory}; paths are relative to it unless they are absolute.`
    : defaults
  return `${own}\n\n${SUBAGENT_NOTE}`
}

/** The error of a child that was refused (by a person, no one, the loop guard): the caller stops too, saying who. */
function refusal(error: string, agent: string, description: string): Error {
  const refused = refusalOf(error)
  const stopped = (reason: string) => `the ${agent} subagent (${description}) was stopped: ${reason}`
  if (refused instanceof PermissionUnansweredError)
    return new PermissionUnansweredError(stopped(refused.reason))
  if (refused instanceof LoopGuardError) return new LoopGuardError(stopped(refused.reason))
  return refused ?? new PermissionRejectedError()
}
