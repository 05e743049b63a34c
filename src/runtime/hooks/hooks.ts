import type { FilePart } from "../../platform/text/content.ts"
import { logger } from "../../platform/util/log.ts"
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

interface Contribution {
  readonly source: string
  readonly hooks: Partial<HookMap>
}

type Entry<N extends HookName> = { readonly source: string; readonly run: HookMap[N] }

const log = logger("hooks")

/**
 * The hook registry plugins register into, and the runners the runtime calls at each point of a call.
 *
 * A run captures the registrations active when it starts: closing one mid-run affects later runs only.
 * A hook that throws is reported with its source (`onError`) and its changes are discarded; only in
 * `tool.execute.before` does a failing hook fail the call (with an error naming the plugin).
 */
export class Hooks {
  readonly #onError: (report: HookReport) => void
  /** Copy-on-write, in registration order. */
  #contributions: readonly Contribution[] = []

  constructor(options: HooksOptions = {}) {
    this.#onError =
      options.onError ?? ((report) => log.error(report.message, { stack: stackOf(report.error) }))
  }

  /**
   * Registers a plugin's hooks. Keys that are not hook names (a plugin module also carries `tool` and
   * the like) are ignored; a hook name whose value is not a function is an error.
   */
  register(hooks: Partial<HookMap>, options: { source: string }): Registration {
    const source = options.source
    if (typeof source !== "string" || !source) throw new TypeError("Hooks.register needs a non-empty source")
    const own: Partial<Record<HookName, unknown>> = {}
    for (const name of HOOK_NAMES) {
      const value = (hooks as Record<string, unknown>)[name]
      if (value === undefined) continue
      if (typeof value !== "function") {
        throw new TypeError(`Hook ${name} from ${source} must be a function, got ${typeof value}`)
      }
      own[name] = value
    }
    const contribution: Contribution = { source, hooks: own as Partial<HookMap> }
    this.#contributions = [...this.#contributions, contribution]
    const close = () => {
      this.#contributions = this.#contributions.filter((other) => other !== contribution)
    }
    return { source, close, [Symbol.dispose]: close }
  }

  /** Whether any registration has this hook (lets callers skip work when none does). */
  has(name: HookName): boolean {
    return this.#contributions.some((contribution) => contribution.hooks[name] !== undefined)
  }

  /** The sources that registered this hook, in the order they run. */
  sources(name: HookName): string[] {
    return this.#entries(name).map((entry) => entry.source)
  }

  /**
   * Runs the `tool.execute.before` hooks; the settlement pipeline calls it before decoding the input.
   *
   * 1. Copy the arguments (the caller's object is never mutated).
   * 2. Run each hook in order on the same `output`; a hook sees the arguments as the previous left them.
   * 3. The first hook to deny (return `{deny}` or throw `HookDenied`) or short-circuit (return
   *    `{result}`) ends the chain; a hook that throws anything else fails the call, naming its plugin.
   * 4. Otherwise return the final arguments: exactly what the tool must receive.
   */
  async runBefore(input: BeforeInput, args: unknown): Promise<BeforeOutcome> {
    const entries = this.#entries("tool.execute.before")
    if (!entries.length) return { action: "run", args }
    const frozen = Object.freeze({ ...input })
    const output: BeforeOutput = { args: copy(args) }
    for (const { source, run } of entries) {
      let returned: BeforeReturn
      try {
        returned = await run(frozen, output)
      } catch (error) {
        if (error instanceof HookDenied)
          return denied({ tool: input.tool, source, reason: error.reason, args: output.args })
        const message = `Plugin ${source} failed in tool.execute.before for ${input.tool}: ${messageOf(error)}`
        this.#report({ hook: "tool.execute.before", source, error, message })
        return { action: "fail", args: output.args, error, source, message }
      }
      if (!isRecord(returned)) continue
      // Plugins are plain JavaScript: read the verdict defensively.
      const verdict = returned as Record<string, unknown>
      if (verdict.deny !== undefined && verdict.deny !== false && verdict.deny !== null) {
        const reason = typeof verdict.deny === "string" && verdict.deny ? verdict.deny : "no reason given"
        return denied({ tool: input.tool, source, reason, args: output.args })
      }
      if (verdict.result !== undefined) {
        const result = shortCircuit(verdict.result, input.tool)
        if (typeof result === "string") {
          const message = `Plugin ${source} returned an invalid result from tool.execute.before for ${input.tool}: ${result}`
          const error = new TypeError(result)
          this.#report({ hook: "tool.execute.before", source, error, message })
          return { action: "fail", args: output.args, error, source, message }
        }
        return { action: "result", args: output.args, result, source }
      }
      if ("args" in verdict) output.args = verdict.args
    }
    return { action: "run", args: output.args }
  }

  /**
   * Runs the `tool.execute.after` hooks over a result and returns the final one. Each hook works on a
   * copy; a hook that throws or leaves an invalid result is reported and its changes are dropped.
   */
  async runAfter(
    input: AfterInput,
    result: {
      readonly title: string
      readonly output: string
      readonly metadata?: Record<string, unknown>
      readonly attachments?: readonly FilePart[]
    },
  ): Promise<AfterOutput> {
    let current: AfterOutput = {
      title: result.title,
      output: result.output,
      metadata: { ...(result.metadata ?? {}) },
      attachments: [...(result.attachments ?? [])],
    }
    const entries = this.#entries("tool.execute.after")
    if (!entries.length) return current
    const frozen = Object.freeze({ ...input })
    for (const { source, run } of entries) {
      const working: AfterOutput = {
        title: current.title,
        output: current.output,
        metadata: copy(current.metadata),
        attachments: [...current.attachments],
      }
      const outcome = await this.#apply("tool.execute.after", source, () => run(frozen, working), working)
      if (!outcome) continue
      const problem = checkResult(working)
      if (problem) {
        this.#invalid("tool.execute.after", source, `for ${input.tool}: ${problem}`)
        continue
      }
      current = working
    }
    return current
  }

  /**
   * Lets `permission.ask` hooks decide a request. `status` is what the engine would do without them
   * (default `ask`); each hook sees the previous one's decision. The engine decides which requests it
   * submits (e.g. only those its rules leave at `ask`, so a configured deny stays a deny).
   */
  async decidePermission(request: AskRequest, status: Action = "ask"): Promise<PermissionDecision> {
    const entries = this.#entries("permission.ask")
    let decision: PermissionDecision = { status }
    if (!entries.length) return decision
    const frozen = Object.freeze({ ...request })
    for (const { source, run } of entries) {
      const working: PermissionOutput = { status: decision.status }
      if (!(await this.#apply("permission.ask", source, () => run(frozen, working), working))) continue
      if (!isAction(working.status)) {
        this.#invalid(
          "permission.ask",
          source,
          `for ${request.permission}: status must be "allow", "deny" or "ask", got ${JSON.stringify(working.status)}`,
        )
        continue
      }
      if (working.status !== decision.status) decision = { status: working.status, source }
    }
    return decision
  }

  /** Runs the `tool.definition` hooks: what the model sees of a tool (description, JSON Schema). */
  async rewriteDefinition(input: DefinitionInput, definition: DefinitionOutput): Promise<DefinitionOutput> {
    let current: DefinitionOutput = { description: definition.description, parameters: definition.parameters }
    const entries = this.#entries("tool.definition")
    if (!entries.length) return current
    const frozen = Object.freeze({ ...input })
    for (const { source, run } of entries) {
      const working: DefinitionOutput = {
        description: current.description,
        parameters: copy(current.parameters),
      }
      if (!(await this.#apply("tool.definition", source, () => run(frozen, working), working))) continue
      const problem =
        typeof working.description !== "string"
          ? "description must be a string"
          : !isRecord(working.parameters)
            ? "parameters must be a JSON Schema object"
            : undefined
      if (problem) {
        this.#invalid("tool.definition", source, `for ${input.toolID}: ${problem}`)
        continue
      }
      current = working
    }
    return current
  }

  /** Runs the `shell.env` hooks: the variables to add to a shell's environment. */
  async shellEnv(
    input: ShellEnvInput,
    env: Readonly<Record<string, string>> = {},
  ): Promise<Record<string, string>> {
    let current: Record<string, string> = { ...env }
    const entries = this.#entries("shell.env")
    if (!entries.length) return current
    const frozen = Object.freeze({ ...input })
    for (const { source, run } of entries) {
      const working: ShellEnvOutput = { env: { ...current } }
      if (!(await this.#apply("shell.env", source, () => run(frozen, working), working))) continue
      const problem = !isRecord(working.env)
        ? "env must be an object"
        : Object.entries(working.env)
            .filter(([, value]) => typeof value !== "string")
            .map(([key, value]) => `${key} must be a string, got ${typeof value}`)[0]
      if (problem) {
        this.#invalid("shell.env", source, problem)
        continue
      }
      current = working.env
    }
    return current
  }

  #entries<N extends HookName>(name: N): Entry<N>[] {
    const entries: Entry<N>[] = []
    for (const contribution of this.#contributions) {
      const run = contribution.hooks[name]
      if (run) entries.push({ source: contribution.source, run })
    }
    return entries
  }

  /**
   * Runs one hook on its working output: merges a returned object into it. False when the hook threw
   * (reported; the caller drops its changes).
   */
  async #apply(
    hook: HookName,
    source: string,
    run: () => unknown,
    working: Record<string, unknown> | object,
  ): Promise<boolean> {
    try {
      const returned = await run()
      if (isRecord(returned)) Object.assign(working, returned)
      return true
    } catch (error) {
      this.#report({
        hook,
        source,
        error,
        message: `Plugin ${source} failed in ${hook}: ${messageOf(error)}`,
      })
      return false
    }
  }

  #invalid(hook: HookName, source: string, problem: string): void {
    const message = `Plugin ${source} left an invalid output in ${hook} ${problem}; its changes were ignored`
    this.#report({ hook, source, error: new TypeError(problem), message })
  }

  #report(report: HookReport): void {
    try {
      this.#onError(report)
    } catch {
      // The reporter itself failed; the call must go on regardless.
    }
  }
}

function denied({
  tool,
  source,
  reason,
  args,
}: {
  tool: string
  source: string
  reason: string
  args: unknown
}): BeforeOutcome {
  return {
    action: "deny",
    args,
    reason,
    source,
    message: `The call to ${tool} was denied by plugin ${source}: ${reason}`,
  }
}

/** The normalised short-circuit result, or what is wrong with it. */
function shortCircuit(value: unknown, tool: string): AfterOutput | string {
  if (!isRecord(value)) return "result must be an object"
  const result: AfterOutput = {
    title: value.title === undefined ? tool : (value.title as string),
    output: value.output as string,
    metadata: (value.metadata ?? {}) as Record<string, unknown>,
    attachments: [...((value.attachments ?? []) as FilePart[])],
  }
  return checkResult(result) ?? result
}

function checkResult(result: AfterOutput): string | undefined {
  if (typeof result.title !== "string") return "title must be a string"
  if (typeof result.output !== "string") return "output must be a string"
  if (!isRecord(result.metadata)) return "metadata must be an object"
  if (!Array.isArray(result.attachments)) return "attachments must be an array"
  for (const file of result.attachments as unknown[]) {
    if (
      !isRecord(file) ||
      file.type !== "file" ||
      typeof file.mime !== "string" ||
      typeof file.url !== "string"
    ) {
      return 'each attachment must be {type: "file", mime, url}'
    }
  }
  return undefined
}

function isAction(value: unknown): value is Action {
  return value === "allow" || value === "deny" || value === "ask"
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}

/** A deep copy when the value allows one (plain data), else the value itself. */
function copy<T>(value: T): T {
  try {
    return structuredClone(value)
  } catch {
    return isRecord(value) ? ({ ...value } as T) : value
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

function stackOf(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error)
}
