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
  /** Set when a subagent asks: which one, so the person deciding knows who wants it. */
  readonly subagent?: AskedBySubagent
}

/** The subagent behind an ask, and the call through which it reaches a person. */
export interface AskedBySubagent {
  /** The agent the subagent runs as. */
  readonly agent: string
  /** Its task, as the `task` call described it. */
  readonly description: string
  /** The `task` call that started it: its session and call id. */
  readonly parent: { readonly sessionID: string; readonly callID: string }
  /**
   * The call of a session no subagent runs in (the `task` call at the top of a nest of subagents):
   * a surface shows the ask with that call (an MCP client's request).
   */
  readonly root: { readonly sessionID: string; readonly callID: string }
}

export type PermissionReply = "once" | "always" | "reject"

export interface Todo {
  readonly id: string
  readonly content: string
  readonly status: "pending" | "in_progress" | "completed" | "cancelled"
  readonly priority: "high" | "medium" | "low"
}
