// The subagents service the task tool gets: child sessions (`subagent-child.ts`) run by the agent loop of
// the AI adapter (`subagent-turn.ts`, loaded on first use: the AI SDK is not cheap to import, and
// `toolbelt call` never needs it).

import type { ToolHost } from "../adapters/ai/host.ts"
import type { Store } from "../platform/store/store.ts"
import type { Bus } from "../runtime/bus/bus.ts"
import { type Config, ConfigError } from "../runtime/config/config.ts"
import type { Agent } from "../runtime/permission/agents/agent.ts"
import { decide } from "../runtime/permission/decision.ts"
import type { Ruleset } from "../runtime/permission/rule.ts"
import type {
  SubagentInfo,
  SubagentOutcome,
  SubagentProgress,
  SubagentRequest,
  Subagents,
} from "../runtime/tool/subagent-services.ts"
import { childSession } from "./subagent-child.ts"
import type { SubagentSessions } from "./subagent-sessions.ts"
import { runSubagentTurn, type TurnPlace } from "./subagent-turn.ts"

/** How deep subagents nest unless `subagent_depth` says otherwise (opencode's: a subagent starts none). */
export const DEFAULT_SUBAGENT_DEPTH = 1

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

export interface SubagentOptions {
  readonly directory: string
  readonly store: Store
  readonly bus: Bus
  readonly agents: ReadonlyMap<string, Agent>
  readonly rulesOf: (agent: string) => Ruleset
  /** The constraints every call of an agent is held to besides its ruleset. */
  readonly constraintsOf: (agent: string) => readonly Ruleset[]
  readonly sessions: SubagentSessions
  readonly config: Config
  readonly env: NodeJS.ProcessEnv
  /** The toolbelt the child turns run on (it exists once the composition root is done). */
  readonly host: () => ToolHost
}

/** A subagent run in this process, foreground or background. */
interface Run {
  readonly agent: string
  readonly description: string
  readonly started: number
  /** Its latest progress. */
  latest: SubagentProgress | undefined
}

/** The subagents of one toolbelt. */
export function subagentService(options: SubagentOptions): SubagentService {
  return new SubagentRunner(options)
}

/**
 * Subagents on child sessions:
 * 1. `available(caller)`: the agents neither primary-only nor hidden whose `task` decision under the
 *    caller's rules and constraints is not deny, by name.
 * 2. `run`: a child still running reports its state; else the child session (`childSession`), held to
 *    the whole policy its caller runs under now (a resumed child too, which goes on as the agent it was
 *    started as), and its turn (`runSubagentTurn`).
 * 3. With `background`, `run` returns at once and the outcome becomes a notice for the caller's next
 *    turn (`takeNotices`); `close` aborts those still running.
 */
class SubagentRunner implements SubagentService {
  readonly maxDepth: number
  readonly background: boolean
  readonly #options: SubagentOptions
  readonly #place: TurnPlace
  /** The runs going on, by child session. */
  readonly #runs = new Map<string, Run>()
  /** Background outcomes not yet told, by calling session. */
  readonly #notices = new Map<string, string[]>()
  readonly #backgroundAborts = new Set<AbortController>()

  constructor(options: SubagentOptions) {
    this.#options = options
    this.maxDepth = depthSetting(options.config.subagent_depth)
    this.background = options.config.background_subagents === true
    const { directory, bus, sessions, env, host } = options
    this.#place = { directory, bus, sessions, env, host }
    // Handed around as functions (the toolbelt's `takeNotices`, the tool's services): bound once here.
    for (const method of ["available", "agent", "depth", "run", "takeNotices", "close"] as const)
      Object.defineProperty(this, method, { value: this[method].bind(this) })
  }

  available(caller: string): SubagentInfo[] {
    const rules = this.#options.rulesOf(caller)
    const constraints = this.#options.constraintsOf(caller)
    return [...this.#options.agents.values()]
      .filter((agent) => agent.mode !== "primary" && !agent.hidden)
      .filter((agent) => decide("task", agent.name, rules, constraints).action !== "deny")
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map(info)
  }

  agent(name: string): SubagentInfo | undefined {
    const agent = this.#options.agents.get(name)
    return agent && info(agent)
  }

  depth(sessionID: string): number {
    return this.#options.sessions.depth(sessionID)
  }

  async run(request: SubagentRequest): Promise<SubagentOutcome> {
    const { agents, store, directory, sessions } = this.#options
    const agent = agents.get(request.agent)
    if (!agent) throw new Error(`Unknown agent "${request.agent}".`)
    const going = request.taskID ? this.#runs.get(request.taskID) : undefined
    if (going) return { status: "running", sessionID: request.taskID!, summary: stillRunning(going) }
    const session = childSession(request, agent, { store, directory, sessions, maxDepth: this.maxDepth })
    sessions.adopt(session.id, request.parent.agent)
    const runAs = agents.get(session.agent) ?? agent

    const controller = request.background ? new AbortController() : undefined
    const run: Run = {
      agent: runAs.name,
      description: request.description,
      started: Date.now(),
      latest: undefined,
    }
    this.#runs.set(session.id, run)
    const done = runSubagentTurn(
      this.#place,
      request,
      runAs,
      session.id,
      controller?.signal ?? request.abort,
      (latest) => {
        run.latest = latest
        request.progress?.(latest)
      },
    )
    const finished = () => {
      if (this.#runs.get(session.id) === run) this.#runs.delete(session.id)
    }
    if (!controller) return done.finally(finished)

    this.#backgroundAborts.add(controller)
    done
      .catch(
        (error: unknown): SubagentOutcome => ({
          status: "error",
          sessionID: session.id,
          error: (error as Error)?.message ?? String(error),
        }),
      )
      .then((outcome) => {
        this.#backgroundAborts.delete(controller)
        finished()
        const list = this.#notices.get(request.parent.sessionID) ?? []
        list.push(notice(outcome, request.description, runAs.name))
        this.#notices.set(request.parent.sessionID, list)
      })
    return {
      status: "running",
      sessionID: session.id,
      summary: `Background task started: ${request.description} (@${runAs.name}). Its result will reach you in a later message; call task with task_id "${session.id}" to see whether it is still running.`,
    }
  }

  takeNotices(sessionID: string): string[] {
    const list = this.#notices.get(sessionID) ?? []
    this.#notices.delete(sessionID)
    return list
  }

  close(): void {
    for (const controller of this.#backgroundAborts) controller.abort(new Error("The toolbelt closed."))
    this.#backgroundAborts.clear()
  }
}

const info = (agent: Agent): SubagentInfo => ({
  name: agent.name,
  mode: agent.mode,
  description: agent.description,
  described: agent.described,
})

/** `subagent_depth` from config: a whole number from 0 (no subagents); default 1. */
function depthSetting(value: unknown): number {
  if (value === undefined) return DEFAULT_SUBAGENT_DEPTH
  if (typeof value === "number" && Number.isInteger(value) && value >= 0) return value
  throw new ConfigError(
    `Invalid subagent_depth: expected a whole number (0: no subagents, 1: subagents start none), got ${JSON.stringify(value)}.`,
  )
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
