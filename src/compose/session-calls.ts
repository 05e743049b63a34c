// Step 8 of building a toolbelt: the call function, and what the process holds per session.

import { killSessionJobs } from "../platform/shell/jobs/index.ts"
import type { Store } from "../platform/store/store.ts"
import type { Limits } from "../platform/text/limits.ts"
import { ascending } from "../platform/util/id.ts"
import type { Logger } from "../platform/util/log.ts"
import type { Bus } from "../runtime/bus/bus.ts"
import type { Hooks } from "../runtime/hooks/hooks.ts"
import type { OutputStore } from "../runtime/output/store.ts"
import { DEFAULT_AGENT } from "../runtime/permission/agents/agent.ts"
import type { PermissionEngine } from "../runtime/permission/engine.ts"
import type { Ruleset } from "../runtime/permission/rule.ts"
import type { Registry } from "../runtime/registry/registry.ts"
import { answerOf, type DoomLoopGuard } from "../runtime/settle/doom-loop.ts"
import { MAX_MINTED, mintCallID, takeMinted } from "../runtime/settle/fresh-call-ids.ts"
import { withInterruptedCalls } from "../runtime/settle/interrupted-calls.ts"
import { announceRecorded, journalSink } from "../runtime/settle/record.ts"
import { type PartSink, type SettleDeps, type Settlement, settle } from "../runtime/settle/settle.ts"
import type { CallInput } from "../runtime/settle/types.ts"
import { CallsInFlight, markStopped, type StoppedBy } from "./calls-in-flight.ts"
import type { ToolServicesFor } from "./tool-services.ts"

export type { CallInput }

export interface SessionCalls {
  call(input: CallInput): Promise<Settlement>
  /**
   * Stops a call this process is running, whoever started it: it ends interrupted (its processes
   * killed), recorded with `metadata.stoppedBy: by`. Undefined when this process runs no such call.
   */
  stop(sessionID: string, callID: string, by: StoppedBy): Promise<Settlement | undefined> | undefined
  /** Lets go of what this process holds for a session and kills its background jobs. */
  endSession(sessionID: string): Promise<void>
  /** Kills the background jobs of every session this toolbelt ran a call for. */
  endAll(): void
}

/** What the calls are made with: the runtime's parts, the guard's, the services and where to log. */
interface SessionCallsOptions {
  readonly registry: Registry
  readonly permission: PermissionEngine
  readonly rulesOf: (agent: string) => Ruleset
  readonly hooks: Hooks
  readonly bus: Bus
  readonly store: Store
  readonly output: OutputStore
  readonly limits: Limits
  readonly doomLoop: DoomLoopGuard
  readonly services: ToolServicesFor
  /** Also receives every tool part state. */
  readonly parts: PartSink | undefined
  readonly log: Logger
}

/**
 * Calls, with the journal recording every step (record.ts says when each is on disk) and the bus
 * publishing it. One call:
 * 1. Fills in the ids (fresh ones) and the agent: the call's, else the one the session runs as (set by
 *    plan mode, in any process), else `build`; an unknown agent fails here, before anything runs.
 * 2. Reports once the calls of its session that a killed process left open: as events, and in the
 *    answer's `metadata.interrupted_calls`.
 * 3. Seeds the loop guard, the first time this process sees the session, with its recorded answers.
 * 4. Settles the call, with the tools' services in `ctx.extra`, and the calls it may make on its behalf
 *    (batch's: each comes back through this function as a call of its own). While it runs it is in
 *    `flights`, so `stop` can abort it; a stopped call's interrupted record says who stopped it.
 */
export function sessionCalls(options: SessionCallsOptions): SessionCalls {
  const { permission, rulesOf, bus, store, doomLoop, services, parts } = options
  const flights = new CallsInFlight()
  const deps = settleDeps(options, flights)
  const announce = announceRecorded({ bus, ...(parts ? { also: parts } : {}) })
  const sessions = new Set<string>()
  // The guard's memory of a session it does not hold (new to this process, or forgotten to stay within
  // its bound) comes from the session's recorded calls.
  const seed = (sessionID: string) => {
    if (doomLoop.knows(sessionID)) return
    for (const part of store.parts.list(sessionID)) {
      const answer = answerOf(part.state)
      if (answer !== undefined)
        doomLoop.record(sessionID, { tool: part.tool, input: part.state.input, answer })
    }
  }

  return {
    async call(input) {
      // 1. Ids and agent.
      const sessionID = input.sessionID ?? ascending("ses")
      sessions.add(sessionID)
      const agent = input.agent ?? store.sessionAgents.get(sessionID) ?? DEFAULT_AGENT
      rulesOf(agent)
      // 2. Interrupted calls of this session.
      const interrupted = store.journal.takeInterrupted(sessionID)
      for (const part of interrupted) announce(part)
      // 3. The loop guard's memory of the session.
      seed(sessionID)
      // 4. Settle, with the calls this one may make on its behalf (batch's).
      const messageID = input.messageID ?? ascending("msg")
      const callID = input.callID ?? mintCallID()
      const flying = flights.start(sessionID, callID, input.abort)
      // Children (batch's) stop with their parent, whoever stops it.
      const children = services.callsFor({
        ...input,
        abort: flying.signal,
        sessionID,
        messageID,
        agent,
        callID,
      })
      let settlement: Settlement | undefined
      try {
        settlement = await settle(
          {
            ...input,
            abort: flying.signal,
            sessionID,
            agent,
            messageID,
            callID,
            extra: {
              ...services.extraFor(agent),
              ...(children ? { calls: children } : {}),
              ...(input.extra ?? {}),
            },
          },
          deps,
        )
      } finally {
        flying.land(settlement)
      }
      return withInterruptedCalls(settlement, interrupted)
    },
    stop: (sessionID, callID, by) => flights.stop(sessionID, callID, by),
    async endSession(sessionID) {
      sessions.delete(sessionID)
      doomLoop.forget(sessionID)
      permission.forgetSession(sessionID)
      await killSessionJobs(sessionID)
    },
    endAll() {
      // Background jobs belong to their session; the sessions of this runtime end with it.
      for (const session of sessions) killSessionJobs(session)
    },
  }
}

/**
 * What settlement gets for every call: the journal (a stopped call's record saying who stopped it),
 * the runtime's parts, the hint's pager and whether it may name a subagent, and where defects are told.
 */
function settleDeps(
  {
    registry,
    permission,
    hooks,
    bus,
    store,
    output,
    limits,
    doomLoop,
    services,
    parts,
    log,
  }: SessionCallsOptions,
  flights: CallsInFlight,
): SettleDeps {
  const journal = journalSink({ store, bus, ...(parts ? { also: parts } : {}) })
  /** Calls whose id was minted here, until their request is recorded (no row to look for). */
  const fresh = new Set<string>()
  const record: PartSink = Object.assign(
    (part: Parameters<PartSink>[0], step?: Parameters<PartSink>[1]) => {
      const minted = part.state.status === "pending" && fresh.delete(part.callID)
      return journal(
        markStopped(part, flights.stoppedBy(part.sessionID, part.callID)),
        minted ? { ...step, fresh: true } : step,
      )
    },
    { ordered: journal.ordered },
  )
  return {
    registry,
    permission,
    store: output,
    limits,
    parts: record,
    hooks,
    doomLoop,
    // An id minted here has no record: nothing to replay, and no row for its request to look for.
    settled: (session, callID) => {
      if (!takeMinted(callID)) return store.journal.settled(session, callID)
      fresh.add(callID)
      if (fresh.size > MAX_MINTED) fresh.delete(fresh.values().next().value as string)
      return undefined
    },
    pager: services.pagerFor,
    // The hint sends the model to a subagent only where `task` is really offered to this call
    // (a turn with a model) and the agent may use it; otherwise it names read calls.
    canDelegate: (name, extra) =>
      registry.offered("task", { agent: name, extra }) &&
      permission.evaluate({ permission: "task", pattern: "*", agent: name }) !== "deny",
    onDefect: (error, part) =>
      log.error(`defect in ${part.tool}`, { callID: part.callID, error: String(error) }),
    onRecordError: (error, part) =>
      log.error(`could not record the ${part.tool} call it answered`, {
        callID: part.callID,
        error: String(error),
      }),
  }
}
