// The subagents service the task tool gets: child sessions run by the agent loop of the AI adapter
// (loaded on first use: the AI SDK is not cheap to import, and `toolbelt call` never needs it).

import { hostname } from "node:os"
import type { ToolHost } from "../adapters/ai/host.ts"
import type { ModelObject } from "../adapters/ai/tools.ts"
import { killSessionJobs } from "../platform/shell/jobs/index.ts"
import type { SessionInfo } from "../platform/store/sessions.ts"
import type { Store } from "../platform/store/store.ts"
import type { Bus } from "../runtime/bus/bus.ts"
import { type Config, ConfigError } from "../runtime/config/config.ts"
import { type Agent, subagentRules } from "../runtime/permission/agents/agent.ts"
import { decide } from "../runtime/permission/decision.ts"
import {
  LoopGuardError,
  PermissionRejectedError,
  PermissionUnansweredError,
  refusalOf,
} from "../runtime/permission/errors.ts"
import type { Ruleset } from "../runtime/permission/rule.ts"
import type {
  SubagentInfo,
  SubagentOutcome,
  SubagentProgress,
  SubagentRequest,
  Subagents,
  TurnModel,
} from "../runtime/tool/subagent-services.ts"
import type { SubagentSessions } from "./subagent-sessions.ts"

/** How deep subagents nest unless `subagent_depth` says otherwise (opencode's: a subagent starts none). */
export const DEFAULT_SUBAGENT_DEPTH = 1

/** Told to every subagent after its own instructions. */
const SUBAGENT_NOTE =
  "You are a subagent: another agent gave you this task, and your last message is the answer it gets. Make that message complete on its own: what you found or did, and anything left undone."

/** The service, and what the toolbelt does with it besides the tool. */
export interface SubagentService extends Subagents {
  /**
   * What background subagents that finished since `sessionID`'s last turn say (one message each), for
   * its next turn; each is handed out once.
   */
  takeNotices(sessionID: string): string[]
  /** Aborts the subagents running in the background. */
  close(): void
}

/** A subagent run in this process, foreground or background. */
interface Run {
  readonly agent: string
  readonly description: string
  readonly started: number
  /** Its latest progress. */
  latest: SubagentProgress | undefined
}

/**
 * Subagents on child sessions.
 * - `available(agent)`: agents not primary-only nor hidden whose `task` decision for them (by `agent`'s
 *   rules and constraints) is not deny, by name.
 * - `run`: 1. the child session: the one `taskID` names when it is a child of the calling session (a
 *   child still running reports its state instead), else a new one, titled `<description> (@<agent>
 *   subagent)`, with todo tools and, at the depth limit, task denied; either way held to the whole
 *   policy the caller ran under (the engine's session constraints); 2. the model: the agent's
 *   own, else the caller's; 3. a turn of the agent loop in the child session, as the agent, with its
 *   prompt, reporting the child's calls as they move; 4. its background jobs are killed when the turn
 *   ends; 5. the outcome: its last text, or why it failed; a child refused by a person stops the caller
 *   too. With `background`, steps 3 to 5 go on after `run` returns, and the outcome becomes a notice for
 *   the caller's next turn.
 */
export function subagentService({
  directory,
  store,
  bus,
  agents,
  rulesOf,
  constraintsOf,
  sessions,
  config,
  env,
  host,
}: {
  directory: string
  store: Store
  bus: Bus
  agents: ReadonlyMap<string, Agent>
  rulesOf: (agent: string) => Ruleset
  /** The constraints every call of an agent is held to besides its ruleset. */
  constraintsOf: (agent: string) => readonly Ruleset[]
  sessions: SubagentSessions
  config: Config
  env: NodeJS.ProcessEnv
  /** The toolbelt the child turns run on (it exists once the composition root is done). */
  host: () => ToolHost
}): SubagentService {
  const maxDepth = depthSetting(config.subagent_depth)
  const background = config.background_subagents === true
  const runs = new Map<string, Run>()
  const notices = new Map<string, string[]>()
  const backgroundAborts = new Set<AbortController>()

  const info = (agent: Agent): SubagentInfo => ({
    name: agent.name,
    mode: agent.mode,
    description: agent.description,
    described: agent.described,
  })

  /** The child session to run in: the one `taskID` names, or a new one. */
  const childSession = (request: SubagentRequest, agent: Agent): SessionInfo => {
    const named = request.taskID ? store.sessions.get(request.taskID) : undefined
    if (named && named.parentID === request.parent.sessionID) return named
    // A parent without a session row (an MCP connection's, `toolbelt call --session`'s) gets one.
    if (!store.sessions.get(request.parent.sessionID)) {
      try {
        store.sessions.create({
          id: request.parent.sessionID,
          projectID: directory,
          host: hostname(),
          agent: request.parent.agent,
        })
      } catch (error) {
        // Created meanwhile (another process, a server's session index): it has its row.
        if (!store.sessions.get(request.parent.sessionID)) throw error
      }
    }
    const atDepthLimit = sessions.depth(request.parent.sessionID) + 1 >= maxDepth
    return store.sessions.create({
      projectID: directory,
      parentID: request.parent.sessionID,
      agent: agent.name,
      title: `${request.description} (@${agent.name} subagent)`,
      permission: subagentRules(agent.permission, { atDepthLimit }),
    })
  }

  const execute = async (
    request: SubagentRequest,
    agent: Agent,
    session: SessionInfo,
    signal: AbortSignal,
    run: Run,
  ): Promise<SubagentOutcome> => {
    const sessionID = session.id
    // 2. The model.
    let model: { model: ModelObject; providerID: string; modelID: string }
    try {
      model = await modelFor(agent, request.model, env)
    } catch (error) {
      return { status: "error", sessionID, error: (error as Error).message }
    }
    const modelName = `${model.providerID}/${model.modelID}`

    // 3. The turn, its calls reported as they move.
    const calls = new Set<string>()
    const report = (latest?: SubagentProgress["latest"]) => {
      run.latest = {
        sessionID,
        agent: agent.name,
        model: modelName,
        calls: calls.size,
        ...(latest ? { latest } : {}),
      }
      request.progress?.(run.latest)
    }
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
      // 4. Its processes end with its turn.
      await killSessionJobs(sessionID)
    }

    // 5. The outcome.
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

  const service: SubagentService = {
    maxDepth,
    background,
    available(caller) {
      const rules = rulesOf(caller)
      const constraints = constraintsOf(caller)
      return [...agents.values()]
        .filter((agent) => agent.mode !== "primary" && !agent.hidden)
        .filter((agent) => decide("task", agent.name, rules, constraints).action !== "deny")
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        .map(info)
    },
    agent(name) {
      const agent = agents.get(name)
      return agent && info(agent)
    },
    depth: (sessionID) => sessions.depth(sessionID),

    async run(request) {
      const agent = agents.get(request.agent)
      if (!agent) throw new Error(`Unknown agent "${request.agent}".`)
      // 1. The session (a child still running says so).
      const going = request.taskID ? runs.get(request.taskID) : undefined
      if (going) return { status: "running", sessionID: request.taskID!, summary: stillRunning(going) }
      const session = childSession(request, agent)
      // The child is held to the policy its caller runs under now (a resumed child included).
      sessions.adopt(session.id, request.parent.agent)
      // A resumed child goes on as the agent it was started as.
      const runAs = agents.get(session.agent) ?? agent

      const controller = request.background ? new AbortController() : undefined
      const signal = controller?.signal ?? request.abort
      const run: Run = {
        agent: runAs.name,
        description: request.description,
        started: Date.now(),
        latest: undefined,
      }
      runs.set(session.id, run)
      const done = execute(request, runAs, session, signal, run)
      const finished = () => {
        if (runs.get(session.id) === run) runs.delete(session.id)
      }
      if (!controller) return done.finally(finished)

      // In the background: the outcome becomes a notice for the caller's next turn.
      backgroundAborts.add(controller)
      done
        .catch(
          (error: unknown): SubagentOutcome => ({
            status: "error",
            sessionID: session.id,
            error: (error as Error)?.message ?? String(error),
          }),
        )
        .then((outcome) => {
          backgroundAborts.delete(controller)
          finished()
          const list = notices.get(request.parent.sessionID) ?? []
          list.push(notice(outcome, request.description, runAs.name))
          notices.set(request.parent.sessionID, list)
        })
      return {
        status: "running",
        sessionID: session.id,
        summary: `Background task started: ${request.description} (@${runAs.name}). Its result will reach you in a later message; call task with task_id "${session.id}" to see whether it is still running.`,
      }
    },

    takeNotices(sessionID) {
      const list = notices.get(sessionID) ?? []
      notices.delete(sessionID)
      return list
    },
    close() {
      for (const controller of backgroundAborts) controller.abort(new Error("The toolbelt closed."))
      backgroundAborts.clear()
    },
  }
  return service
}

/** `subagent_depth` from config: a whole number from 0 (no subagents); default 1. */
function depthSetting(value: unknown): number {
  if (value === undefined) return DEFAULT_SUBAGENT_DEPTH
  if (typeof value === "number" && Number.isInteger(value) && value >= 0) return value
  throw new ConfigError(
    `Invalid subagent_depth: expected a whole number (0: no subagents, 1: subagents start none), got ${JSON.stringify(value)}.`,
  )
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
      `The ${agent.name} agent runs on ${agent.model}, which cannot be used here: ${(error as Error).message}`,
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

function stillRunning(run: Run): string {
  const seconds = Math.round((Date.now() - run.started) / 1000)
  const latest = run.latest?.latest
  const calls = run.latest?.calls ?? 0
  return (
    `Still running: ${run.description} (@${run.agent}), for ${seconds} s, ${calls} tool call${calls === 1 ? "" : "s"} so far` +
    (latest
      ? `; the latest: ${latest.tool} (${latest.status}${latest.title ? `: ${latest.title}` : ""})`
      : "") +
    "."
  )
}

/** What the caller's next turn is told when a background subagent ends (opencode's shape). */
function notice(outcome: SubagentOutcome, description: string, agent: string): string {
  const open = `<task id="${outcome.sessionID}" state="${outcome.status}">`
  if (outcome.status === "completed")
    return `${open}\n<summary>Background task completed: ${description} (@${agent})</summary>\n<task_result>\n${outcome.text}\n</task_result>\n</task>`
  const error = outcome.status === "error" ? outcome.error : outcome.summary
  return `${open}\n<summary>Background task failed: ${description} (@${agent})</summary>\n<task_error>\n${error}\n</task_error>\n</task>`
}
