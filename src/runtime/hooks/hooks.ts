import type { FilePart } from "../../platform/text/content.ts"
import { logger } from "../../platform/util/log.ts"
import type { Action } from "../permission/rule.ts"
import type { AskRequest } from "../permission/service.ts"
import {
  checkResult,
  copy,
  denied,
  isAction,
  isRecord,
  messageOf,
  shortCircuit,
  stackOf,
} from "./hook-results.ts"
import {
  type AfterInput,
  type AfterOutput,
  type BeforeInput,
  type BeforeOutcome,
  type BeforeOutput,
  type BeforeReturn,
  type DefinitionInput,
  type DefinitionOutput,
  HOOK_NAMES,
  HookDenied,
  type HookMap,
  type HookName,
  type HookReport,
  type HooksOptions,
  type PermissionDecision,
  type PermissionOutput,
  type Registration,
  type ShellEnvInput,
  type ShellEnvOutput,
} from "./types.ts"

export * from "./types.ts"

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
    if (typeof source !== "string" || !source) throw new TypeError("Hooks.register needs a non-empty source.")
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
