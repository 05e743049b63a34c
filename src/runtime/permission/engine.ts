import type { AskedBySubagent } from "../../platform/store/record-shapes.ts"
import type { ApprovalStore, SavedApproval } from "../../platform/store/saved-approval.ts"
import { ascending } from "../../platform/util/id.ts"
import type { Publish } from "../bus/events.ts"
import { alwaysScope } from "./always-scope.ts"
import { decide, type Verdict } from "./decision.ts"
import { callDigest } from "./digest.ts"
import {
  PermissionCorrectedError,
  PermissionDeniedError,
  PermissionDigestMismatchError,
  PermissionNotFoundError,
  PermissionRejectedError,
  PermissionUnansweredError,
  PermissionWithdrawnError,
} from "./errors.ts"
import type { PermissionReply, PermissionReplyKind, PermissionRequest } from "./request.ts"
import type { Action, Rule, Ruleset } from "./rule.ts"
import { PATH_PERMISSIONS, relevantRules } from "./ruleset.ts"
import type { AskRequest, EvaluateQuery, FleetAsks, PermissionService } from "./service.ts"
import { uncheckedOf } from "./unchecked.ts"
import { match } from "./wildcard.ts"

export type { PermissionReply, PermissionReplyKind, PermissionRequest } from "./request.ts"

export interface PermissionEngineOptions {
  /** The project the saved approvals belong to (its directory's realpath). */
  readonly projectID: string
  /**
   * The configured rules of an agent (defaults + user config + agent config). Return the same array for
   * the same agent: compiled rules are cached by identity.
   */
  readonly rules: (agent: string) => Ruleset
  /**
   * Rulesets every call of an agent is held to as well, each evaluated on its own (`decision.ts`): they
   * can make a decision stricter, never looser (a project's rules, another agent's config, the ceiling
   * agent of a server). The same arrays each time, like `rules`.
   */
  readonly constraints?: (agent: string) => readonly Ruleset[]
  /** Where "always" approvals are saved. */
  readonly approvals: ApprovalStore
  readonly publish?: Publish
  /**
   * A session's constraints, on top of its agent's: a subagent's session is held to its parent
   * session's whole policy, and to the denials it gets as a subagent.
   */
  readonly sessionConstraints?: (sessionID: string) => readonly Ruleset[]
  /** The subagent that runs in a session, if one does: an ask from it says so. */
  readonly subagentOf?: (sessionID: string) => AskedBySubagent | undefined
  /**
   * Consulted before a person is asked (the `permission.ask` plugin hook): it may allow or deny a
   * request the rules leave open. It is never consulted for a configured deny.
   */
  readonly consult?: (request: AskRequest) => Promise<Action>
}

interface Pending {
  readonly request: PermissionRequest
  /** The configured rule that asked, if one did. */
  readonly rule: Rule | undefined
  readonly resolve: () => void
  readonly reject: (error: unknown) => void
}

/**
 * The permission engine: decides each ask from the rules and the saved approvals, keeps the asks
 * nobody has decided yet, and applies the replies.
 *
 * Precedence for one pattern:
 * 1. the configured rules decide: the agent's ruleset (the last matching rule wins) and each
 *    constraint of the agent and the session on its own, the strictest of them (`decision.ts`);
 * 2. deny → denied, always: a configured deny beats any saved approval;
 * 3. allow → allowed; a pattern the ask marks unchecked (`unchecked.ts`) the catch-all `*` allows only
 *    when no rule of its ruleset for the permission denies or asks;
 * 4. a saved approval of the project, or an approval for this session, matches → allowed;
 * 5. otherwise the person is asked.
 */
export class PermissionEngine implements PermissionService {
  readonly #options: PermissionEngineOptions
  readonly #pending = new Map<string, Pending>()
  readonly #sessionApprovals = new Map<string, Rule[]>()
  #fleet: FleetAsks<PermissionRequest, PermissionReply> | undefined

  constructor(options: PermissionEngineOptions) {
    this.#options = options
  }

  /**
   * Resolves when every pattern is allowed; otherwise waits for a reply.
   * 1. Decide each pattern; a configured deny throws `PermissionDeniedError` with the relevant rules.
   * 2. All allowed: return.
   * 3. Otherwise keep a pending request, publish `permission.asked`, and wait for `reply`, the abort
   *    signal (rejects with its reason) or `dispose`.
   */
  async ask(request: AskRequest, options: { signal?: AbortSignal } = {}): Promise<void> {
    const configured = this.#configured(request.agent, request.sessionID)
    const saved = this.#savedApprovals()
    const unchecked = uncheckedOf(request.metadata)?.patterns
    const verdict = (permission: string, pattern: string) =>
      this.#decide(permission, pattern, configured, saved, request.sessionID, unchecked?.includes(pattern))
    let needsAsk = false
    // The rule that asks, named when no one can answer (undefined: nothing matched, asking is the default).
    let asking: Rule | undefined
    for (const pattern of request.patterns) {
      const { action, rule } = verdict(request.permission, pattern)
      if (action === "deny") {
        throw new PermissionDeniedError(relevantRules(request.permission, ...configured), {
          permission: request.permission,
          pattern,
          ...(rule ? { rule } : {}),
        })
      }
      if (action === "ask" && !needsAsk) {
        needsAsk = true
        if (rule?.action === "ask") asking = rule
      }
    }
    if (!needsAsk) return

    const signal = options.signal
    signal?.throwIfAborted()
    if (this.#options.consult) {
      const decided = await this.#options.consult(request)
      if (decided === "allow") return
      if (decided === "deny")
        throw new PermissionDeniedError(relevantRules(request.permission, ...configured), {
          permission: request.permission,
          by: "the permission.ask plugin hook",
        })
      signal?.throwIfAborted()
    }
    const subagent = request.subagent ?? this.#options.subagentOf?.(request.sessionID)
    const pending: PermissionRequest = {
      id: ascending("per"),
      sessionID: request.sessionID,
      agent: request.agent,
      permission: request.permission,
      patterns: [...request.patterns],
      // What "always" saves is what the person is shown: no more than they saw (always-scope.ts).
      always: alwaysScope({
        permission: request.permission,
        patterns: request.patterns,
        always: request.always,
        ruleFor: (permission, pattern) => verdict(permission, pattern).rule,
      }),
      metadata: request.metadata,
      ...(request.tool
        ? {
            tool: { messageID: request.tool.messageID, callID: request.tool.callID, name: request.tool.name },
          }
        : {}),
      digest: callDigest(request.tool?.name ?? "", request.input),
      time: Date.now(),
      ...(subagent ? { subagent } : {}),
    }

    const { promise, resolve, reject } = Promise.withResolvers<void>()
    const onAbort = () => {
      if (!this.#pending.delete(pending.id)) return
      reject(signal?.reason)
      // Withdrawn: tell whoever shows the request that it is gone.
      this.#publishReplied(pending, "reject")
    }
    const done = () => signal?.removeEventListener("abort", onAbort)
    this.#pending.set(pending.id, {
      request: pending,
      rule: asking,
      resolve: () => {
        done()
        resolve()
      },
      reject: (error) => {
        done()
        reject(error)
      },
    })
    signal?.addEventListener("abort", onAbort, { once: true })
    try {
      this.#options.publish?.("permission.asked", pending)
    } catch (error) {
      // Nobody was told about the request, so nobody can answer it: do not leave it waiting.
      this.#pending.delete(pending.id)
      done()
      promise.catch(() => {})
      throw error
    }
    return promise
  }

  /** The action the rules and saved approvals give (no session: session approvals do not count). */
  evaluate({ permission, pattern, agent }: EvaluateQuery): Action {
    const configured = [this.#options.rules(agent), ...(this.#options.constraints?.(agent) ?? [])]
    return this.#decide(permission, pattern, configured, this.#savedApprovals(), undefined).action
  }

  /** On a shared store: the asks other instances raised are listed and replied to here too. */
  share(fleet: FleetAsks<PermissionRequest, PermissionReply> | undefined): void {
    this.#fleet = fleet
  }

  /** The pending requests (the fleet's too, when shared), oldest first; of one session when given. */
  list(sessionID?: string): PermissionRequest[] {
    const out: PermissionRequest[] = []
    for (const { request } of this.#pending.values()) {
      if (sessionID === undefined || request.sessionID === sessionID) out.push(request)
    }
    for (const request of this.#fleet?.list(sessionID) ?? []) {
      if (!this.#pending.has(request.id)) out.push(request)
    }
    return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  }

  /**
   * Applies a reply.
   * 1. Unknown request → `PermissionNotFoundError`; a digest other than the request's →
   *    `PermissionDigestMismatchError` (nothing changes).
   * 2. `once`: this request goes on.
   * 3. `always`: `{permission, pattern}` for every entry of the request's `always` list is saved (for the
   *    project, or the session with `scope: "session"`), this request goes on, and so does every other
   *    pending request of the session that is now fully allowed.
   * 4. `reject`: this request fails (`PermissionUnansweredError` when no one could be asked,
   *    `PermissionCorrectedError` when there is a message, `PermissionRejectedError` otherwise), and so
   *    does every other pending request of the session: unanswered too when no one could be asked,
   *    otherwise as ended by the person's "no" to another call.
   * Each request that ends publishes `permission.replied`. Another instance's (`share`): checked, handed on.
   */
  reply(input: PermissionReply): void {
    const pending = this.#pending.get(input.requestID)
    if (!pending) {
      this.#replyElsewhere(input)
      return
    }
    const { request } = pending
    if (input.digest !== undefined && input.digest !== request.digest) {
      throw new PermissionDigestMismatchError(request.id)
    }

    if (input.reply === "reject") {
      this.#settle(pending, "reject", rejection(input, pending.rule))
      // The others end with it, and say who ended them: no one, when no one could be asked.
      for (const other of this.#sessionPending(request.sessionID)) {
        const error = input.unanswered
          ? new PermissionUnansweredError(input.unanswered, other.rule ? { rule: other.rule } : {})
          : new PermissionRejectedError({ another: true })
        this.#settle(other, "reject", error)
      }
      return
    }

    if (input.reply === "always") this.#remember(request, input.scope ?? "project")
    this.#settle(pending, input.reply)
    if (input.reply !== "always") return

    const saved = this.#savedApprovals()
    for (const other of this.#sessionPending(request.sessionID)) {
      const { agent, permission, patterns, sessionID } = other.request
      let configured: Ruleset[]
      try {
        configured = this.#configured(agent, sessionID)
      } catch {
        continue
      }
      const unchecked = uncheckedOf(other.request.metadata)?.patterns
      const allowed = patterns.every(
        (pattern) =>
          this.#decide(permission, pattern, configured, saved, sessionID, unchecked?.includes(pattern))
            .action === "allow",
      )
      if (allowed) this.#settle(other, "always")
    }
  }

  /** The project's saved approvals. */
  approvals(): SavedApproval[] {
    return this.#options.approvals.list(this.#options.projectID)
  }

  /** Removes one of the project's saved approvals; false when the project has none with that id. */
  revoke(id: string): boolean {
    if (!this.approvals().some((approval) => approval.id === id)) return false
    return this.#options.approvals.remove(id)
  }

  /** Drops the approvals given for one session only (when the session ends). */
  forgetSession(sessionID: string): void {
    this.#sessionApprovals.delete(sessionID)
  }

  /** Ends every pending request (shutdown or reload): no one refused them, and they say so. */
  dispose(): void {
    for (const pending of [...this.#pending.values()]) {
      this.#settle(pending, "reject", new PermissionWithdrawnError())
    }
  }

  /** A reply to an ask another instance raised: checked here, applied there (its call waits there). */
  #replyElsewhere(input: PermissionReply): void {
    const request = this.#fleet?.list().find((candidate) => candidate.id === input.requestID)
    if (!request) throw new PermissionNotFoundError(input.requestID)
    if (input.digest !== undefined && input.digest !== request.digest) {
      throw new PermissionDigestMismatchError(request.id)
    }
    if (!this.#fleet?.send(input)) throw new PermissionNotFoundError(input.requestID)
  }

  /** The agent's ruleset first, then every constraint the call is held to. */
  #configured(agent: string, sessionID: string): Ruleset[] {
    return [
      this.#options.rules(agent),
      ...(this.#options.constraints?.(agent) ?? []),
      ...(this.#options.sessionConstraints?.(sessionID) ?? []),
    ]
  }

  /** The project's saved approvals, read once and only when a decision needs them (most are settled by rules). */
  #savedApprovals(): () => readonly SavedApproval[] {
    let saved: readonly SavedApproval[] | undefined
    return () => {
      saved ??= this.#options.approvals.list(this.#options.projectID)
      return saved
    }
  }

  /** `configured`: the agent's ruleset, then its constraints (see `#configured`). */
  #decide(
    permission: string,
    pattern: string,
    configured: readonly Ruleset[],
    saved: () => readonly SavedApproval[],
    sessionID: string | undefined,
    unchecked = false,
  ): Verdict {
    const [rules = [], ...constraints] = configured
    const verdict = decide(permission, pattern, rules, constraints, { unchecked })
    if (verdict.action !== "ask") return verdict
    const options = { paths: PATH_PERMISSIONS.has(permission) }
    const approved = (approval: { permission: string; pattern: string }) =>
      keyMatches(permission, approval.permission) && match(pattern, approval.pattern, options)
    if (saved().some(approved)) return { action: "allow", rule: undefined }
    if (sessionID !== undefined && this.#sessionApprovals.get(sessionID)?.some(approved))
      return { action: "allow", rule: undefined }
    return verdict
  }

  #remember(request: PermissionRequest, scope: "project" | "session"): void {
    const { permission } = request
    if (scope === "session") {
      const rules = this.#sessionApprovals.get(request.sessionID) ?? []
      for (const pattern of request.always) {
        if (!rules.some((rule) => rule.permission === permission && rule.pattern === pattern)) {
          rules.push({ permission, pattern, action: "allow" })
        }
      }
      this.#sessionApprovals.set(request.sessionID, rules)
      return
    }
    const { projectID, approvals } = this.#options
    const saved = [...approvals.list(projectID)]
    for (const pattern of request.always) {
      if (saved.some((approval) => approval.permission === permission && approval.pattern === pattern))
        continue
      saved.push(approvals.add({ projectID, permission, pattern }))
    }
  }

  #sessionPending(sessionID: string): Pending[] {
    return [...this.#pending.values()].filter((pending) => pending.request.sessionID === sessionID)
  }

  #settle(pending: Pending, reply: PermissionReplyKind, error?: Error): void {
    if (!this.#pending.delete(pending.request.id)) return
    if (reply === "reject") pending.reject(error ?? new PermissionRejectedError())
    else pending.resolve()
    this.#publishReplied(pending.request, reply)
  }

  #publishReplied(request: PermissionRequest, reply: PermissionReplyKind): void {
    this.#options.publish?.("permission.replied", {
      sessionID: request.sessionID,
      requestID: request.id,
      reply,
    })
  }
}

const WINDOWS = process.platform === "win32"

/** `match(permission, key)`, without compiling anything for the usual literal key. */
function keyMatches(permission: string, key: string): boolean {
  if (key === permission) return true
  if (!WINDOWS && !key.includes("*") && !key.includes("?")) return false
  return match(permission, key)
}

/** The error a `reject` reply ends its request with. */
function rejection(input: PermissionReply, rule: Rule | undefined): Error | undefined {
  if (input.unanswered) return new PermissionUnansweredError(input.unanswered, rule ? { rule } : {})
  return input.message ? new PermissionCorrectedError(input.message) : undefined
}
