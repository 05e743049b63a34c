import {
  PermissionCorrectedError,
  PermissionDeniedError,
  PermissionRejectedError,
  PermissionUnansweredError,
} from "./errors.ts"
import type { Action, Rule, Ruleset } from "./rule.ts"
import type { AskRequest, EvaluateQuery, PermissionService } from "./service.ts"
import { uncheckedOf, vouches } from "./unchecked.ts"
import { match } from "./wildcard.ts"

/**
 * A decision: approve once or always, reject (with feedback for the model), or `unanswered`: no one
 * could be asked, and why (the call fails without claiming that someone said no).
 */
export type Reply =
  | "once"
  | "always"
  | "reject"
  | { readonly reject: string }
  | { readonly unanswered: string }

/** Decides an ask that the rules leave open: a TTY prompt, a test, or a fixed answer. */
export type Decide = (request: AskRequest, options: { signal?: AbortSignal }) => Promise<Reply>

/**
 * A small rule-based permission service: last matching rule wins, no match asks `decide` (or fails as
 * unanswered when there is no one to ask). "always" replies are remembered in memory for this service only.
 */
export class RulePermissions implements PermissionService {
  readonly #rules: Rule[]
  readonly #approved: Rule[] = []
  readonly #decide: Decide | undefined

  constructor(options: { rules?: Ruleset; decide?: Decide } = {}) {
    this.#rules = [...(options.rules ?? [])]
    this.#decide = options.decide
  }

  /** The agent is not asked about: these rules are the same for every agent. */
  evaluate({ permission, pattern }: Pick<EvaluateQuery, "permission" | "pattern">): Action {
    const configured = lastMatch(this.#rules, permission, pattern)
    if (configured?.action === "deny") return "deny"
    if (lastMatch(this.#approved, permission, pattern)) return "allow"
    return configured?.action ?? "ask"
  }

  async ask(request: AskRequest, options: { signal?: AbortSignal } = {}): Promise<void> {
    const unchecked = uncheckedOf(request.metadata)?.patterns
    let needsAsk = false
    // The rule that asks, named when no one can answer.
    let asking: Rule | undefined
    for (const pattern of request.patterns) {
      let action = this.evaluate({ permission: request.permission, pattern })
      // A pattern the rules cannot check: the catch-all does not vouch for it (see unchecked.ts).
      if (action === "allow" && unchecked?.includes(pattern)) {
        const rule = lastMatch(this.#rules, request.permission, pattern)
        const approved = lastMatch(this.#approved, request.permission, pattern)
        if (!approved && rule && !vouches(rule, request.permission, [this.#rules])) action = "ask"
      }
      if (action === "deny") {
        const rule = lastMatch(this.#rules, request.permission, pattern)
        throw new PermissionDeniedError(
          this.#rules.filter((rule) => match(request.permission, rule.permission)),
          { permission: request.permission, pattern, ...(rule ? { rule } : {}) },
        )
      }
      if (action === "ask" && !needsAsk) {
        needsAsk = true
        const rule = lastMatch(this.#rules, request.permission, pattern)
        if (rule?.action === "ask") asking = rule
      }
    }
    if (!needsAsk) return
    if (!this.#decide)
      throw new PermissionUnansweredError(
        "This permission service has no one to ask (it was made without a decide function): give it one, or a rule that allows the call.",
        asking ? { rule: asking } : {},
      )
    const reply = await this.#decide(request, options)
    if (reply === "reject") throw new PermissionRejectedError()
    if (typeof reply === "object") {
      throw "unanswered" in reply
        ? new PermissionUnansweredError(reply.unanswered, asking ? { rule: asking } : {})
        : new PermissionCorrectedError(reply.reject)
    }
    if (reply === "always") {
      for (const pattern of request.always) {
        this.#approved.push({ permission: request.permission, pattern, action: "allow" })
      }
    }
  }
}

function lastMatch(rules: readonly Rule[], permission: string, pattern: string): Rule | undefined {
  for (let i = rules.length - 1; i >= 0; i--) {
    const rule = rules[i]!
    if (match(permission, rule.permission) && match(pattern, rule.pattern)) return rule
  }
  return undefined
}
