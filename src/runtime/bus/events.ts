import type { RolledBackChange } from "../../platform/fs/recovery-log.ts"
import type { ToolPart } from "../../platform/store/part.ts"
import type { PermissionAsked, PermissionReply, Todo } from "../../platform/store/record-shapes.ts"
import type { Answers, QuestionRequest } from "../question/question.ts"

export type { PermissionAsked, PermissionReply, Todo }

/** Every event toolbelt publishes, by type (DESIGN.md "Events"). */
export interface Events {
  "message.part.updated": { readonly part: ToolPart }
  "permission.asked": PermissionAsked
  "permission.replied": {
    readonly sessionID: string
    readonly requestID: string
    readonly reply: PermissionReply
  }
  "question.asked": QuestionRequest
  "question.replied": {
    readonly sessionID: string
    readonly requestID: string
    readonly answers: Answers
  }
  /** The question was dismissed, could not be asked, or was withdrawn (its call aborted). */
  "question.rejected": { readonly sessionID: string; readonly requestID: string }
  "todo.updated": { readonly sessionID: string; readonly todos: readonly Todo[] }
  "file.edited": { readonly file: string; readonly sessionID?: string }
  /** A multi-file change that a crash interrupted was rolled back at start-up (published once, just after). */
  "file.recovered": { readonly directory: string; readonly change: RolledBackChange }
  "tool.output.delta": {
    readonly sessionID: string
    readonly partID: string
    readonly callID: string
    readonly delta: string
  }
}

export type EventType = keyof Events

export interface Event<T extends EventType = EventType> {
  readonly type: T
  readonly properties: Events[T]
}

/** What a publisher needs; the bus implements it. */
export type Publish = <T extends EventType>(type: T, properties: Events[T]) => void
