import type { FilePart } from "../../platform/text/content.ts"

/** What a tool asks the permission service for (the runner adds session and call identity). */
export interface AskInput {
  /** The permission key, e.g. `read`, `edit`, `bash`, `external_directory`. */
  readonly permission: string
  /** The concrete patterns this call needs (a path, a command, ...). */
  readonly patterns: readonly string[]
  /** What an "always" reply remembers; defaults to `patterns`. */
  readonly always?: readonly string[]
  /** Shown to the person deciding (diffs, the command, ...). */
  readonly metadata?: Record<string, unknown>
}

export interface MetadataUpdate {
  readonly title?: string
  readonly metadata?: Record<string, unknown>
}

/** One message of the conversation so far, as the runner knows it (opaque to the runtime). */
export type ConversationMessage = Readonly<Record<string, unknown>>

/**
 * The invocation context every tool receives. The runner supplies the identity fields; the registry
 * never infers them (spec 003, "durable identity").
 */
export interface Context {
  readonly sessionID: string
  readonly messageID: string
  readonly agent: string
  readonly callID: string
  readonly abort: AbortSignal
  readonly extra: Readonly<Record<string, unknown>>
  readonly messages: readonly ConversationMessage[]
  /** Live progress for UIs: a new title and/or metadata while the call runs. */
  metadata(update: MetadataUpdate): void
  /** Asks the permission service; resolves when allowed, throws a permission error otherwise. */
  ask(input: AskInput): Promise<void>
}

/** Context available when a v1 tool is initialised. */
export interface InitContext {
  /**
   * The whole agent the tool is initialised for (the spec's `Agent.Info`): its name, and from a
   * toolbelt its mode, description, permission rules, prompt, model and steps where it has them.
   */
  readonly agent?: { readonly name: string } & Readonly<Record<string, unknown>>
  /**
   * What the tool's calls will get in `ctx.extra` (the services), when the registry was given it: a
   * description that depends on the project (the skills it can load) is written from it.
   */
  readonly extra?: Readonly<Record<string, unknown>>
}

/** The v1 result shape (`Tool.define`). */
export interface Result<M extends Record<string, unknown> = Record<string, unknown>> {
  readonly title: string
  readonly output: string
  readonly metadata: M
  readonly attachments?: readonly FilePart[]
}

/** What a tool puts in its ask's `metadata.unchecked`. */
export interface Unchecked {
  /** The patterns of the ask the rules cannot check. */
  readonly patterns: readonly string[]
  /** Why, as a sentence: "`$(echo rm) x`: its command word $(echo rm) is expanded when the command runs." */
  readonly reason: string
  /** What to do instead: "Write the command literally, its program name first (`rm x`)." */
  readonly advice: string
}
