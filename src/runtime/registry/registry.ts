import type { Pager } from "../../platform/text/hint.ts"
import { monotonicMs } from "../../platform/util/clock.ts"
import { logger } from "../../platform/util/log.ts"
import type { InitContext } from "../tool/context.ts"
import { fromDef, isInfo } from "../tool/define.ts"
import {
  type Annotations,
  type Availability,
  inputJsonSchema,
  internals,
  offerFor,
  type Paging,
} from "../tool/internal.ts"
import type { AnyTool } from "../tool/tool.ts"
import { type Entry, type Handle, type Placement, type Registrable, ToolSet } from "./tool-set.ts"

const log = logger("registry")

/** An agent as a v1 tool's `init` sees it. */
type AgentInfo = NonNullable<InitContext["agent"]>

/** A tool as advertised for one turn: what the model sees, and the registration it came from. */
export interface Advertised {
  readonly name: string
  readonly description: string
  readonly inputSchema: Record<string, unknown>
  readonly annotations: Annotations
  /** The permission key the tool belongs to: its own declaration, else its name. */
  readonly permission: string
  /** How the tool reads a file page by page, when it declares it. */
  readonly paging?: Paging
  readonly entry: Entry
  /** Left out of the up-front listing: found through tool_search (set with `listing: "all"` or `"callable"`). */
  readonly deferred?: boolean
  /** The definition's size in o200k_base tokens (set with `listing: "all"`). */
  readonly tokens?: number
}

/** The registration identity behind each name advertised for a provider turn (no handlers kept). */
export type Turn = ReadonlyMap<string, symbol>

export interface ToolsQuery extends Availability {
  readonly agent?: string
  /** The session the tools are for: its own rules (a subagent's) hide tools too. */
  readonly sessionID?: string
  /**
   * `listed` (default): what a client gets up front for the session (deferred tools left out but those
   * the session loaded). `all`: every tool the agent may see, deferred ones included and marked, each
   * with its size in tokens. `callable`: the same without the sizes (what surfaces register, so a
   * deferred tool can be called by name: nothing is counted that the deferral itself does not need).
   * The registry itself lists every tool; the toolbelt's `tools()` applies this.
   */
  readonly listing?: "listed" | "all" | "callable"
}

/**
 * Where tools are looked up: a project's registrations over the process's. Project registrations
 * beat process ones; inside each, the latest active registration of a name wins.
 */
export class Registry {
  readonly process: ToolSet
  readonly project: ToolSet
  // v1 tools are initialised once per registration and agent, on first use.
  readonly #initialised = new WeakMap<Entry, Map<string, Promise<AnyTool>>>()
  readonly #initExtra: ((agent: string) => Readonly<Record<string, unknown>>) | undefined
  readonly #agentInfo: ((agent: string) => AgentInfo | undefined) | undefined

  /**
   * `initExtra` gives a v1 tool's `init` what its calls will get in `ctx.extra` (a toolbelt's services),
   * for descriptions that depend on the project. `agentInfo` gives its `init` the whole agent (the
   * spec's `InitContext.agent`: name, mode, description, permission, prompt, model, steps).
   */
  constructor(
    options: {
      process?: ToolSet
      project?: ToolSet
      initExtra?: (agent: string) => Readonly<Record<string, unknown>>
      agentInfo?: (agent: string) => AgentInfo | undefined
    } = {},
  ) {
    this.process = options.process ?? new ToolSet("process")
    this.project = options.project ?? new ToolSet("project")
    this.#initExtra = options.initExtra
    this.#agentInfo = options.agentInfo
  }

  /**
   * `aliases` (alias → a name of `tools`): other names callers may use, never listed; a registered name
   * wins over an alias (a tool file's name when its `Tool.define` id names the tool).
   */
  register(
    tools: Readonly<Record<string, Registrable>>,
    options: { placement?: Placement; source?: string; aliases?: Readonly<Record<string, string>> } = {},
  ): Handle {
    const set = options.placement === "process" ? this.process : this.project
    return set.register(tools, {
      ...(options.source === undefined ? {} : { source: options.source }),
      ...(options.aliases ? { aliases: options.aliases } : {}),
    })
  }

  /** The effective registration of a name, if any. */
  resolve(name: string): Entry | undefined {
    return this.project.resolve(name) ?? this.process.resolve(name)
  }

  /** Every registered name (process names first, then project names), each once. */
  ids(): string[] {
    return [...new Set([...this.process.names(), ...this.project.names()])].filter((name) =>
      this.resolve(name),
    )
  }

  /**
   * A registered name for `name` when it is not one: the one equal to it but for case, when exactly one
   * exists (`Read` → `read`), else the name it is an alias of (`my_tool` → `my_custom_tool`).
   */
  repairName(name: string, among: Iterable<string> = this.ids()): string | undefined {
    const lower = name.toLowerCase()
    const names = [...among]
    const found = names.filter((candidate) => candidate.toLowerCase() === lower)
    if (found.length === 1) return found[0]
    const target = this.project.aliasOf(name) ?? this.process.aliasOf(name)
    return target !== undefined && names.includes(target) ? target : undefined
  }

  /** The executable tool of a registration for an agent (v1 tools are initialised here). */
  instantiate(entry: Entry, agent = "build"): Promise<AnyTool> {
    if (!isInfo(entry.value)) return Promise.resolve(entry.value)
    let byAgent = this.#initialised.get(entry)
    if (!byAgent) {
      byAgent = new Map()
      this.#initialised.set(entry, byAgent)
    }
    let tool = byAgent.get(agent)
    if (!tool) {
      const info = entry.value
      const extra = this.#initExtra?.(agent)
      const whole = this.#agentInfo?.(agent)
      tool = info.init({ agent: { ...whole, name: agent }, ...(extra ? { extra } : {}) }).then((def) =>
        fromDef(def, {
          ...(info.available ? { available: info.available } : {}),
          ...(info.annotations ? { annotations: info.annotations } : {}),
          ...(info.permission ? { permission: info.permission } : {}),
          ...(info.paging ? { paging: info.paging } : {}),
        }),
      )
      // A failed init is not cached: the next turn tries again.
      tool.catch(() => byAgent.delete(agent))
      byAgent.set(agent, tool)
    }
    return tool
  }

  /**
   * The tools to advertise for one request: every effective registration, initialised in parallel
   * (each timed), kept only where the tool declares itself available. A tool whose init fails is
   * logged and left out rather than taking the others down.
   */
  async tools(query: ToolsQuery = {}): Promise<Advertised[]> {
    const entries = this.ids().map((name) => this.resolve(name)!)
    const results = await Promise.all(
      entries.map(async (entry): Promise<Advertised | undefined> => {
        const started = monotonicMs()
        try {
          const tool = await this.instantiate(entry, query.agent)
          const own = internals(tool)
          if (!offerFor(own.available, query).offered) return undefined
          return {
            name: entry.name,
            description: own.description,
            inputSchema: inputJsonSchema(tool),
            annotations: own.annotations,
            permission: own.permission ?? entry.name,
            ...(own.paging ? { paging: own.paging } : {}),
            entry,
          }
        } catch (error) {
          log.error(`tool ${entry.name} failed to initialise; it is left out`, {
            source: entry.source,
            error: String(error),
          })
          return undefined
        } finally {
          log.debug(`init ${entry.name}`, { ms: Math.round((monotonicMs() - started) * 1000) / 1000 })
        }
      }),
    )
    return results.filter((tool): tool is Advertised => tool !== undefined)
  }

  /** Whether the tool registered as `name` would be offered for `query` (declarations only: nothing is initialised). */
  offered(name: string, query: ToolsQuery = {}): boolean {
    const entry = this.resolve(name)
    if (!entry) return false
    const declared = isInfo(entry.value) ? entry.value : internals(entry.value)
    return offerFor(declared.available, query).offered
  }

  /**
   * The registered tools not offered for `query` that say why (a backend that is not configured), each
   * with its reason; tools withheld silently (`invalid`, model-specific editors) are not listed.
   */
  async withheld(query: ToolsQuery = {}): Promise<{ name: string; reason: string }[]> {
    const out: { name: string; reason: string }[] = []
    for (const name of this.ids()) {
      const entry = this.resolve(name)!
      const declared = isInfo(entry.value) ? entry.value : internals(entry.value)
      const { reason } = offerFor(declared.available, query)
      if (reason) out.push({ name, reason })
    }
    return out
  }

  /**
   * The tool that reads files page by page for `query`, for the hint after a truncated result; found
   * from declarations alone (nothing is initialised), so it costs a walk over the names.
   * 1. The first effective registration that declares `paging`;
   * 2. that is available for the query and whose permission `allowed` keeps (not denied to the agent);
   * 3. named as registered.
   */
  pager(query: ToolsQuery, allowed: (permission: string) => boolean): Pager | undefined {
    for (const name of this.ids()) {
      const entry = this.resolve(name)!
      const declared = isInfo(entry.value) ? entry.value : internals(entry.value)
      if (!declared.paging) continue
      if (!offerFor(declared.available, query).offered) continue
      if (!allowed(declared.permission ?? name)) continue
      return { ...declared.paging, tool: name }
    }
    return undefined
  }

  /** Captures the registration identity of each advertised name for a provider turn. */
  turn(advertised: readonly Advertised[]): Turn {
    return new Map(advertised.map((tool) => [tool.name, tool.entry.identity]))
  }

  onChange(listener: () => void): () => void {
    const offProcess = this.process.onChange(listener)
    const offProject = this.project.onChange(listener)
    return () => {
      offProcess()
      offProject()
    }
  }
}
