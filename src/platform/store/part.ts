import type { FilePart } from "../text/content.ts"

export type ToolInput = Record<string, unknown>

export interface PendingState {
  readonly status: "pending"
  readonly input: ToolInput
  /** The raw argument text as the model streamed it. */
  readonly raw: string
}

export interface RunningState {
  readonly status: "running"
  readonly input: ToolInput
  readonly title?: string
  readonly metadata?: Record<string, unknown>
  readonly time: { readonly start: number }
}

export interface CompletedState {
  readonly status: "completed"
  readonly input: ToolInput
  readonly output: string
  readonly title: string
  readonly metadata: Record<string, unknown>
  readonly time: { readonly start: number; readonly end: number }
  readonly attachments?: readonly FilePart[]
}

export interface ErrorState {
  readonly status: "error"
  readonly input: ToolInput
  readonly error: string
  readonly metadata?: Record<string, unknown>
  readonly time: { readonly start: number; readonly end: number }
}

export type ToolState = PendingState | RunningState | CompletedState | ErrorState

/** A tool call as it is stored and streamed (DESIGN.md "Tool part"). */
export interface ToolPart {
  readonly id: string
  readonly sessionID: string
  readonly messageID: string
  readonly type: "tool"
  readonly callID: string
  readonly tool: string
  readonly state: ToolState
}

/** Thrown when code tries to move a part backwards or out of a final state: always a defect. */
export class IllegalTransitionError extends Error {
  override readonly name = "IllegalTransitionError"
  readonly part: ToolPart
  readonly to: ToolState["status"]
  constructor(part: ToolPart, to: ToolState["status"]) {
    super(`Illegal tool part transition ${part.state.status} → ${to} for call ${part.callID} (${part.tool})`)
    this.part = part
    this.to = to
  }
}

const RANK: Record<ToolState["status"], number> = { pending: 0, running: 1, completed: 2, error: 2 }

/** Whether a part may move from one state to the next: only forward, never out of a final state. */
export function canAdvance(from: ToolState["status"], to: ToolState["status"]): boolean {
  if (RANK[from] === 2) return false
  return RANK[to] >= RANK[from]
}

/** The part in its next state; throws `IllegalTransitionError` for a move that is not forward. */
export function advance(part: ToolPart, next: ToolState): ToolPart {
  if (!canAdvance(part.state.status, next.status)) throw new IllegalTransitionError(part, next.status)
  return { ...part, state: next }
}

/** Input as a record: a value that is not a plain object is wrapped as `{value}`. */
export function asInput(value: unknown): ToolInput {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as ToolInput
  return value === undefined ? {} : { value }
}
