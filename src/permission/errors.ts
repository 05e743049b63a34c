import type { Rule } from "./rule.ts"

/** A configured rule denies the call. Shown to the model; the turn continues. */
export class PermissionDeniedError extends Error {
  override readonly name = "PermissionDeniedError"
  readonly rules: readonly Rule[]
  constructor(rules: readonly Rule[]) {
    super(
      `The user has specified a rule which prevents you from using this specific tool call. Here are some of the relevant rules ${JSON.stringify(rules)}`,
    )
    this.rules = rules
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
  constructor(reason: string) {
    super(`This call needs a person's approval and no one could be asked, so it did not run: ${reason}`)
    this.reason = reason
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
