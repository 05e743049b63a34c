import type { Rule } from "./rule.ts"
import { describeRule, describeRules } from "./rule-text.ts"

/** What decided a denial: the rule (with its source), or who else. */
export interface Denial {
  /** The permission and pattern that were denied. */
  readonly permission?: string
  readonly pattern?: string
  /** The configured rule that decided. */
  readonly rule?: Rule
  /** Who denied when no rule did: "the permission.ask plugin hook". */
  readonly by?: string
}

/**
 * A configured rule denies the call. Shown to the model; the turn continues. The message keeps
 * opencode's first sentence (clients match it), then names the deciding rule and where it was written.
 */
export class PermissionDeniedError extends Error {
  override readonly name = "PermissionDeniedError"
  readonly rules: readonly Rule[]
  /** The rule that decided, when one did. */
  readonly rule: Rule | undefined
  constructor(rules: readonly Rule[], denial: Denial = {}) {
    const what =
      denial.permission === undefined
        ? "this call"
        : `${denial.permission}${denial.pattern === undefined || denial.pattern === "*" ? "" : ` for ${JSON.stringify(denial.pattern)}`}`
    const why = denial.rule
      ? `the rule ${describeRule(denial.rule)} denies ${what}`
      : denial.by
        ? `${denial.by} denied ${what}`
        : `the relevant rules are ${describeRules(rules)}`
    super(
      `The user has specified a rule which prevents you from using this specific tool call: ${why}. Do not retry it; do something else, or ask the user to change that rule.`,
    )
    this.rules = rules
    this.rule = denial.rule
  }
}

/** A person said no. Stops the turn. The only refusal that says "the user rejected". */
export class PermissionRejectedError extends Error {
  override readonly name = "PermissionRejectedError"
  /**
   * `another`: the person rejected another pending request of the session, which ends this one with it
   * (this one was never answered on its own, and the message says so).
   */
  readonly another: boolean
  constructor(options: { another?: boolean } = {}) {
    super(
      options.another
        ? "The user rejected permission to use another tool call of this session, which stops this one too."
        : "The user rejected permission to use this specific tool call.",
    )
    this.another = options.another ?? false
  }
}

/** The person said no and told the model what to do instead. Shown to the model; the turn continues. */
export class PermissionCorrectedError extends Error {
  override readonly name = "PermissionCorrectedError"
  readonly feedback: string
  constructor(feedback: string) {
    super(
      `The user rejected permission to use this specific tool call with the following feedback: ${feedback}`,
    )
    this.feedback = feedback
  }
}

/**
 * Nobody could be asked (no terminal and no `--yes`, a client that cannot show asks): the call did not
 * run. Not a person's "no", so it does not claim one; the model reads why and what would let it run.
 * Shown to the model; the turn continues.
 */
export class PermissionUnansweredError extends Error {
  override readonly name = "PermissionUnansweredError"
  readonly reason: string
  /** The rule that asked (undefined when no rule matched and asking is the default). */
  readonly rule: Rule | undefined
  constructor(reason: string, options: { rule?: Rule } = {}) {
    super(`This call needs a person's approval and no one could be asked, so it did not run: ${reason}`)
    this.reason = reason
    this.rule = options.rule
  }
}

/** How every loop guard refusal begins (the reason follows). */
export const LOOP_GUARD = "The loop guard stopped this call: "

/**
 * The loop guard refused the call, and no person did: a `doom_loop` rule denies it, or it asks and no one
 * could be asked. The reason says what repeated and what to do. Stops the turn.
 */
export class LoopGuardError extends Error {
  override readonly name = "LoopGuardError"
  readonly reason: string
  constructor(reason: string) {
    super(`${LOOP_GUARD}${reason}`)
    this.reason = reason
  }
}

/**
 * toolbelt stopped (shut down, or the policy was reloaded) while the request waited for an answer. No one
 * refused it, and the call did not run. Stops the turn.
 */
export class PermissionWithdrawnError extends Error {
  override readonly name = "PermissionWithdrawnError"
  constructor() {
    super(
      "toolbelt stopped before anyone answered this call's permission request, so it did not run; no one refused it. Run it again once toolbelt is running.",
    )
  }
}

/** A reply named a request that is not pending (answered already, aborted, or never asked). */
export class PermissionNotFoundError extends Error {
  override readonly name = "PermissionNotFoundError"
  readonly requestID: string
  constructor(requestID: string) {
    super(`No pending permission request ${requestID}: it was already answered, aborted or never asked.`)
    this.requestID = requestID
  }
}

export type PermissionError =
  | PermissionDeniedError
  | PermissionRejectedError
  | PermissionCorrectedError
  | PermissionUnansweredError
  | LoopGuardError
  | PermissionWithdrawnError
  | PermissionNotFoundError

export function isPermissionError(error: unknown): error is PermissionError {
  return (
    error instanceof PermissionDeniedError ||
    error instanceof PermissionRejectedError ||
    error instanceof PermissionCorrectedError ||
    error instanceof PermissionUnansweredError ||
    error instanceof LoopGuardError ||
    error instanceof PermissionWithdrawnError ||
    error instanceof PermissionNotFoundError
  )
}

/**
 * Whether the refusal stops the turn instead of leaving the model to try something else: a person's "no",
 * no one to ask, the loop guard, or toolbelt stopping. A rule's deny and a person's feedback do not.
 */
export function stopsTheTurn(error: unknown): boolean {
  return (
    error instanceof PermissionRejectedError ||
    error instanceof PermissionUnansweredError ||
    error instanceof LoopGuardError ||
    error instanceof PermissionWithdrawnError
  )
}

/**
 * The refusal a call's recorded message came from, for a call that refuses because a call made on its
 * behalf (a batch's, a subagent's) was refused: each error's own words say who refused, and are kept.
 * Undefined for a message that names no one but a person (a "no", or a person's "no" to the loop guard).
 */
export function refusalOf(message: string): PermissionError | undefined {
  if (message.startsWith(UNANSWERED)) return new PermissionUnansweredError(message.slice(UNANSWERED.length))
  if (message.startsWith(LOOP_GUARD)) return new LoopGuardError(message.slice(LOOP_GUARD.length))
  const withdrawn = new PermissionWithdrawnError()
  if (message === withdrawn.message) return withdrawn
  return undefined
}

/** How every unanswered ask's message begins (the reason follows). */
const UNANSWERED = new PermissionUnansweredError("").message

/**
 * A reply carried the digest of another call than the pending request's: the approval was given for a
 * different input, and it is refused (the request stays pending).
 */
export class PermissionDigestMismatchError extends Error {
  override readonly name = "PermissionDigestMismatchError"
  readonly requestID: string
  constructor(requestID: string) {
    super(
      `The reply to permission request ${requestID} was given for a different call (its digest does not match); the request is still pending. Review the call again and reply with its current digest.`,
    )
    this.requestID = requestID
  }
}
