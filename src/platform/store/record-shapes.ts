// The shapes of the records the store keeps that the runtime also publishes as events: defined here,
// below the runtime, so the store does not import upward; runtime/bus/events.ts re-exports them.

/** A pending permission request, as shown to the person deciding. */
export interface PermissionAsked {
  readonly id: string
  readonly sessionID: string
  readonly permission: string
  readonly patterns: readonly string[]
  /** What an "always" reply would remember, exactly. */
  readonly always: readonly string[]
  readonly metadata: Record<string, unknown>
  readonly tool?: { readonly messageID: string; readonly callID: string; readonly name?: string }
}

export type PermissionReply = "once" | "always" | "reject"

export interface Todo {
  readonly id: string
  readonly content: string
  readonly status: "pending" | "in_progress" | "completed" | "cancelled"
  readonly priority: "high" | "medium" | "low"
}
