// The shapes a call has on its way through settlement, shared by the pipeline (settle.ts), its
// recording (record.ts) and the loop guard (loop-check.ts); kept apart so none of them imports another
// just for a type.

import type { ToolPart } from "../../platform/store/part.ts"
import type { FilePart } from "../../platform/text/content.ts"
import type { Pager } from "../../platform/text/hint.ts"
import type { Direction, Limits } from "../../platform/text/limits.ts"
import type { Hooks } from "../hooks/hooks.ts"
import type { OutputStore } from "../output/store.ts"
import type { PermissionService } from "../permission/service.ts"
import type { Registry, Turn } from "../registry/registry.ts"
import type { ConversationMessage } from "../tool/context.ts"
import type { DoomLoopGuard } from "./doom-loop.ts"

/** One call, as the runner hands it over. The ids are the runner's; settlement never invents them. */
export interface CallRequest {
  /** The name the model used. */
  readonly tool: string
  /** The arguments as the model sent them (not yet decoded). */
  readonly input: unknown
  readonly sessionID: string
  readonly messageID: string
  readonly agent: string
  readonly callID: string
  /**
   * The call this one is made on behalf of, still running (a batch's child): the loop guard does not
   * count it as a call made between this one and the calls before it.
   */
  readonly parentCallID?: string
  readonly abort?: AbortSignal
  readonly extra?: Readonly<Record<string, unknown>>
  readonly messages?: readonly ConversationMessage[]
  /** The registrations advertised for this call's provider turn; omitted for direct calls. */
  readonly turn?: Turn
  /** Per-call bounding override. */
  readonly bounding?: Partial<Limits> & { readonly direction?: Direction }
  /** An existing part id to continue (the stream processor created it as pending). */
  readonly partID?: string
  /**
   * The caller sends the result on as soon as it has it (a server answering a client), so a read-only
   * call need not wait for its record: the part's states commit together just after, in the same turn
   * of the event loop. Other calls always record their result before it is returned. Default false:
   * when `settle` resolves, the call's record (and what it stamped, such as a read) is durable.
   */
  readonly recordAfterReply?: boolean
}

/**
 * Receives every state of the call's tool part, in order; the promise says when the state is recorded.
 * A sink marked `ordered` keeps the order of what it is handed by itself (a queue), so it is handed
 * each state at once; any other sink gets a state only after its previous one resolved. `step.rides`:
 * nobody waits for this state before acting (a call's request; a read-only call's start), so a sink
 * that commits (the journal) may let it ride with the call's next state instead of committing it alone.
 */
export type PartSink = ((part: ToolPart, step?: PartStep) => void | Promise<void>) & {
  readonly ordered?: boolean
}

/** How a state is handed to a `PartSink`. */
export interface PartStep {
  readonly rides?: boolean
  /**
   * Nobody waits for this state at all: the caller already has the answer (`recordAfterReply`). A sink
   * that commits may let it ride while other calls it records are still open (one of them commits
   * soon); once none is, it commits at once, while the caller reads the answer.
   */
  readonly trails?: boolean
  /** A request whose call id was minted for it in this process: the journal has no row to look for. */
  readonly fresh?: boolean
}

export interface SettleDeps {
  readonly registry: Registry
  readonly permission: PermissionService
  readonly store: OutputStore
  readonly limits: Limits
  readonly parts?: PartSink
  /** Whether the agent may delegate reading a large output (decides the truncation hint). */
  readonly canDelegate?: (agent: string, extra: Readonly<Record<string, unknown>>) => boolean
  /** The tool an agent reads files page by page with, if any: the truncation hint names calls to it. */
  readonly pager?: (agent: string) => Pager | undefined
  /** How long an aborted call may take to wind down before it is recorded as interrupted. */
  readonly abortGraceMs?: number
  /** Told about defects (with their stack) for logs. */
  readonly onDefect?: (error: unknown, part: ToolPart) => void
  /** Told when a record nobody waited for (`recordAfterReply`) could not be written, for logs. */
  readonly onRecordError?: (error: unknown, part: ToolPart) => void
  /** Plugin hooks: `tool.execute.before` (rewrite, deny, short-circuit) and `tool.execute.after`. */
  readonly hooks?: Hooks
  /** Detects repeated calls and short cycles across the session; a loop asks `doom_loop`. */
  readonly doomLoop?: DoomLoopGuard
  /**
   * The recorded final part of a call that already finished (the journal's idempotency key is the
   * session and call id): such a call is answered from the record and never executed again.
   */
  readonly settled?: (sessionID: string, callID: string) => ToolPart | undefined
}

export type ErrorKind =
  | "unknown"
  | "hook"
  | "loop"
  | "stale"
  | "invalid"
  | "failure"
  | "permission"
  /** The person dismissed the tool's question, or no one could answer it. */
  | "question"
  | "interrupted"
  | "defect"
  | "output"

export type Settlement =
  | {
      readonly status: "completed"
      readonly title: string
      readonly output: string
      readonly metadata: Record<string, unknown>
      readonly attachments: readonly FilePart[]
      /** The encoded structured output, when the tool returned one and it was not cut. */
      readonly structured?: unknown
      readonly part: ToolPart
    }
  | {
      readonly status: "error"
      readonly error: string
      readonly kind: ErrorKind
      /** A rejected permission stops the turn (the loop should not continue). */
      readonly blocked: boolean
      readonly metadata: Record<string, unknown>
      readonly part: ToolPart
    }

/** A call as a library user makes it: the ids default to fresh ones, the agent to `build`. */
export type CallInput = Omit<CallRequest, "sessionID" | "messageID" | "agent" | "callID"> &
  Partial<Pick<CallRequest, "sessionID" | "messageID" | "agent" | "callID">>
