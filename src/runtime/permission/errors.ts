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

/** The person said no. Stops the turn. */
export class PermissionRejectedError extends Error {
  override readonly name = "PermissionRejectedError"
  constructor() {
    super("The user rejected permission to use this specific tool call.")
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
  | PermissionNotFoundError

export function isPermissionError(error: unknown): error is PermissionError {
  return (
    error instanceof PermissionDeniedError ||
    error instanceof PermissionRejectedError ||
    error instanceof PermissionCorrectedError ||
    error instanceof PermissionUnansweredError ||
    error instanceof PermissionNotFoundError
  )
}

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
