import type { AskedBySubagent } from "../../platform/store/record-shapes.ts"
import type { Action } from "./rule.ts"

/** A permission request as the runtime hands it to the service (the tool's ask plus call identity). */
export interface AskRequest {
  readonly sessionID: string
  readonly agent: string
  readonly permission: string
  /** What this call needs. */
  readonly patterns: readonly string[]
  /** Exactly what an "always" reply remembers: `{permission, pattern}` for each entry. */
  readonly always: readonly string[]
  readonly metadata: Record<string, unknown>
  /** The call the request belongs to. */
  readonly tool?: { readonly messageID: string; readonly callID: string; readonly name: string }
  /** The call's decoded input: an approval is bound to it. */
  readonly input?: unknown
  /** Set when a subagent asks: which one (the person deciding is told). */
  readonly subagent?: AskedBySubagent
}

/** What `evaluate` is asked: may `agent` use `permission` on `pattern`? */
export interface EvaluateQuery {
  readonly permission: string
  readonly pattern: string
  readonly agent: string
}

/**
 * What the runtime needs of a permission engine. `ask` resolves when the call may go on and throws a
 * permission error otherwise; aborting `signal` withdraws a pending ask.
 */
export interface PermissionService {
  ask(request: AskRequest, options?: { signal?: AbortSignal }): Promise<void>
  /** The action the rules give, without asking anyone (for hints and tool visibility). */
  evaluate(query: EvaluateQuery): Action
}

/**
 * The asks other instances raised on a shared store (the fleet, issue 28): an engine lists them with
 * its own, and hands on a reply to one of them instead of applying it (the raising instance does).
 * Generic in the request and reply (request.ts's), which are built on this module's types.
 */
export interface FleetAsks<Request, Reply> {
  /** The pending asks of every instance (this one's included), of one session when given. */
  list(sessionID?: string): Request[]
  /** Hands the reply to the instance that raised the ask; false when it is pending nowhere any more. */
  send(reply: Reply): boolean
}
