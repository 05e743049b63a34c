import type { RolledBackChange } from "../../platform/fs/recovery-log.ts"
import type { MessageRecord } from "../../platform/store/messages.ts"
import type { ToolPart } from "../../platform/store/part.ts"
import type { PermissionAsked, PermissionReply, Todo } from "../../platform/store/record-shapes.ts"
import type { SessionInfo } from "../../platform/store/sessions.ts"
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
  /** A session was created (through serve's API); the page lists it before its first call. */
  "session.created": { readonly sessionID: string; readonly session: SessionInfo }
  /** A turn's message was stored (the prompt, an assistant message's steps), as the store records it. */
  "message.updated": { readonly sessionID: string; readonly message: MessageRecord }
  /** The model's text as it streams, before its message is stored (`messageID` is the one it will have). */
  "message.text.delta": { readonly sessionID: string; readonly messageID: string; readonly delta: string }
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
