import type { FilePart } from "../../platform/text/content.ts"
import type { Action } from "../permission/rule.ts"
import type { AskRequest } from "../permission/service.ts"

// ---------------------------------------------------------------------------------------------------
// The hooks a plugin can register. Every hook receives a read-only `input` and a mutable `output`:
// it changes the outcome by mutating `output` or by returning an object whose fields replace those of
// `output`. Hooks run in registration order, each seeing the changes of the ones before.
// ---------------------------------------------------------------------------------------------------

export interface BeforeInput {
  readonly tool: string
  readonly sessionID: string
  readonly callID: string
  readonly agent: string
}

export interface BeforeOutput {
  /** The arguments the tool will receive: mutate them or assign new ones. */
  args: unknown
}

/** A result a `tool.execute.before` hook returns instead of running the tool. */
export interface ShortCircuit {
  readonly title?: string
  readonly output: string
  readonly metadata?: Record<string, unknown>
  readonly attachments?: readonly FilePart[]
}

export type BeforeReturn =
  // biome-ignore lint/suspicious/noConfusingVoidType: a hook that only mutates `output` returns nothing
  | void
  | undefined
  /** Deny the call: it becomes a model-visible error with the reason. */
  | { readonly deny: string }
  /** Short-circuit: the tool is not executed; this is the call's result. */
  | { readonly result: ShortCircuit }
  /** New arguments (same as assigning `output.args`). */
  | { readonly args: unknown }

export interface AfterInput {
  readonly tool: string
  readonly sessionID: string
  readonly callID: string
  /** The arguments the tool received (after any `tool.execute.before` rewrite). */
  readonly args: unknown
}

export interface AfterOutput {
  title: string
  output: string
  metadata: Record<string, unknown>
  attachments: FilePart[]
}

export interface PermissionOutput {
  status: Action
}

export interface DefinitionInput {
  readonly toolID: string
}

export interface DefinitionOutput {
  description: string
  /** The JSON Schema of the tool's input, as the model will see it. */
  parameters: Record<string, unknown>
}

export interface ShellEnvInput {
  readonly cwd: string
  readonly sessionID?: string
  readonly callID?: string
}

export interface ShellEnvOutput {
  /** Variables added on top of the shell's environment. */
  env: Record<string, string>
}

// biome-ignore lint/suspicious/noConfusingVoidType: a hook that only mutates `output` returns nothing
type Returns<T> = T | undefined | void | Promise<T | undefined | void>

export interface HookMap {
  "tool.execute.before": (input: BeforeInput, output: BeforeOutput) => BeforeReturn | Promise<BeforeReturn>
  "tool.execute.after": (input: AfterInput, output: AfterOutput) => Returns<Partial<AfterOutput>>
  "permission.ask": (input: AskRequest, output: PermissionOutput) => Returns<Partial<PermissionOutput>>
  "tool.definition": (input: DefinitionInput, output: DefinitionOutput) => Returns<Partial<DefinitionOutput>>
  "shell.env": (input: ShellEnvInput, output: ShellEnvOutput) => Returns<Partial<ShellEnvOutput>>
}

export type HookName = keyof HookMap

export const HOOK_NAMES: readonly HookName[] = [
  "tool.execute.before",
  "tool.execute.after",
  "permission.ask",
  "tool.definition",
  "shell.env",
]

/** Thrown by a `tool.execute.before` hook to deny the call explicitly (same as returning `{deny}`). */
export class HookDenied extends Error {
  override readonly name = "HookDenied"
  readonly reason: string
  constructor(reason: string) {
    super(reason)
    this.reason = reason
  }
}

/** A hook that failed (threw, or left an invalid output), with the plugin it came from. */
export interface HookReport {
  readonly hook: HookName
  readonly source: string
  readonly error: unknown
  /** One line naming the plugin, the hook and what went wrong. */
  readonly message: string
}

/** What the settlement pipeline does with a call after the `tool.execute.before` hooks. */
export type BeforeOutcome =
  /** Run the tool with these (possibly rewritten) arguments. */
  | { readonly action: "run"; readonly args: unknown }
  /** Do not run the tool: this is the result (the `after` hooks should still see it). */
  | {
      readonly action: "result"
      readonly args: unknown
      readonly result: AfterOutput
      readonly source: string
    }
  /** A hook denied the call: `message` is the model-visible error. */
  | {
      readonly action: "deny"
      readonly args: unknown
      readonly reason: string
      readonly source: string
      readonly message: string
    }
  /** A hook failed (threw, or returned an invalid result): the call fails with `message`. */
  | {
      readonly action: "fail"
      readonly args: unknown
      readonly error: unknown
      readonly source: string
      readonly message: string
    }

export interface PermissionDecision {
  readonly status: Action
  /** The plugin whose hook last changed the status, if any did. */
  readonly source?: string
}

/** Closing removes exactly this registration (idempotent). */
export interface Registration {
  readonly source: string
  close(): void
  [Symbol.dispose](): void
}

export interface HooksOptions {
  /** Told about failing hooks; default: logged to stderr. */
  readonly onError?: (report: HookReport) => void
}
