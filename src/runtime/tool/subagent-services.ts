// The services of the task tool: starting subagents on child sessions, and the model of the turn that
// starts them. Carried in `ctx.extra` like every tool service (services.ts); the composition root
// provides them, so the tool knows nothing of the agent loop behind them.

/**
 * The model a turn runs on, as whoever runs the turn gave it (the agent loop of `toolbelt run` or of a
 * library user, an MCP server whose client samples). Absent for calls made without a model (`toolbelt
 * call`): tools that need one are not offered there.
 */
export interface TurnModel {
  readonly providerID: string
  readonly modelID: string
  /** The model itself (an AI SDK language model): opaque below the adapters, which call it. */
  readonly model: unknown
}

/** An agent a `task` call may name. */
export interface SubagentInfo {
  readonly name: string
  readonly mode: "primary" | "subagent" | "all"
  readonly description: string
  /** Whether someone wrote the description (a custom agent without one gets a made-up one). */
  readonly described: boolean
}

/** How a subagent's session is doing, as its calls move. */
export interface SubagentProgress {
  /** The child session. */
  readonly sessionID: string
  readonly agent: string
  /** The model it runs on (`provider/model-id`). */
  readonly model: string
  /** Its latest tool call, once it made one. */
  readonly latest?: {
    readonly tool: string
    readonly status: string
    readonly title?: string
  }
  /** How many tool calls it has made so far in this run. */
  readonly calls: number
}

export interface SubagentRequest {
  /** The agent to run as (`subagent_type`). */
  readonly agent: string
  /** A few words on the task: the child session is titled `<description> (@<agent> subagent)`. */
  readonly description: string
  readonly prompt: string
  /** Continue this child session of the calling session (its history is replayed). */
  readonly taskID?: string
  /** Return at once; the result reaches the calling session's next turn. */
  readonly background: boolean
  /** The call that starts the subagent. */
  readonly parent: {
    readonly sessionID: string
    readonly messageID: string
    readonly callID: string
    readonly agent: string
  }
  /** The calling turn's model: the subagent's unless its agent names its own. */
  readonly model: TurnModel
  /** Aborts the child's turn (and kills its processes); a background child is not bound to it. */
  readonly abort: AbortSignal
  /** Told as the child's calls move (live progress for the calling part). */
  readonly progress?: (progress: SubagentProgress) => void
}

/**
 * How a subagent run ended: its last text when it finished; why not when it failed; `running` when it
 * went to the background (or `taskID` named a child still running there).
 */
export type SubagentOutcome =
  | { readonly status: "completed"; readonly sessionID: string; readonly text: string }
  | { readonly status: "error"; readonly sessionID: string; readonly error: string }
  | { readonly status: "running"; readonly sessionID: string; readonly summary: string }

/** Subagents: child sessions run by the agent loop. */
export interface Subagents {
  /**
   * The agents a `task` call by `agent` may start: every agent that is not primary-only nor hidden and
   * whose `task` rule for it does not deny, sorted by name.
   */
  available(agent: string): readonly SubagentInfo[]
  /** An agent by name (any mode), if there is one. */
  agent(name: string): SubagentInfo | undefined
  /** How many subagent sessions lie above `sessionID` (0 for a session no subagent runs in). */
  depth(sessionID: string): number
  /** How deep subagents may nest (`subagent_depth`, default 1: a subagent cannot start one). */
  readonly maxDepth: number
  /** Whether `background` runs are turned on (`background_subagents` in the config). */
  readonly background: boolean
  /**
   * Runs `request.prompt` in a new child session of the calling one, or in the child `taskID` names.
   * Throws the permission error of a child whose ask a person refused (or no one could answer), so the
   * calling turn stops too; rejects with the abort reason when `abort` fires.
   */
  run(request: SubagentRequest): Promise<SubagentOutcome>
}
