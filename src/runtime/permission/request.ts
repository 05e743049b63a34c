// A permission request as the person deciding sees it, and the replies it takes.

import type { AskRequest } from "./service.ts"

/**
 * A pending permission request: what the person deciding sees (and the `permission.asked` payload).
 * The ask as the runtime made it, without the call's input (only its digest is shown), plus the
 * request's own identity.
 */
export interface PermissionRequest extends Omit<AskRequest, "input"> {
  /** `per_…`, time-sortable. */
  readonly id: string
  /** sha256 of the tool name and the canonical JSON of the call's input: a reply may carry it. */
  readonly digest: string
  /** Epoch ms. */
  readonly time: number
}

export type PermissionReplyKind = "once" | "always" | "reject"

export interface PermissionReply {
  readonly requestID: string
  readonly reply: PermissionReplyKind
  /** With `reject`: feedback for the model (the call fails with `PermissionCorrectedError`). */
  readonly message?: string
  /**
   * With `reject`: no one could be asked, and why (the call fails with `PermissionUnansweredError`, which
   * does not claim that a person said no). Takes precedence over `message`.
   */
  readonly unanswered?: string
  /** The digest of the call the reply was given for; when present it must match the request's. */
  readonly digest?: string
  /** Where `always` is remembered: saved for the project (default), or for this session only. */
  readonly scope?: "project" | "session"
}
