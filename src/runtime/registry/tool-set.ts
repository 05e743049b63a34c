import { type AnyInfo, isInfo } from "../tool/define.ts"
import { isTool } from "../tool/internal.ts"
import type { AnyTool } from "../tool/tool.ts"
import { assertToolName, RegistrationError } from "./name.ts"

/** What can be registered: a `Tool.make` tool or a v1 `Tool.define` info. */
export type Registrable = AnyTool | AnyInfo

/** One named tool of one registration. Its object identity is the registration identity. */
export interface Entry {
  /** Unique to this registration of this name: what a provider turn remembers. */
  readonly identity: symbol
  readonly name: string
  readonly value: Registrable
  /** Who contributed it (`builtin`, `plugin:<name>`, `mcp:<server>`, `custom:<file>`...). */
  readonly source: string
  readonly placement: Placement
}

export type Placement = "process" | "project"

/** Closing a handle removes exactly the registration it came from. */
export interface Handle {
  close(): void
  [Symbol.dispose](): void
}

interface Contribution {
  readonly entries: ReadonlyMap<string, Entry>
  /** Other names a caller may use for a tool of this registration: alias → name. Never listed. */
  readonly aliases: ReadonlyMap<string, string>
  active: boolean
}

/**
 * The registrations of one placement (process or project), in order. The latest active
 * registration of a name wins; closing it reveals the one before.
 */
export class ToolSet {
  readonly placement: Placement
  readonly #contributions: Contribution[] = []
  readonly #listeners = new Set<() => void>()

  constructor(placement: Placement) {
    this.placement = placement
  }

  register(
    tools: Readonly<Record<string, Registrable>>,
    options: { source?: string; aliases?: Readonly<Record<string, string>> } = {},
  ): Handle {
    const source = options.source ?? "app"
    const entries = new Map<string, Entry>()
    // Copied now: the caller changing its record later changes nothing here.
    for (const [name, value] of Object.entries(tools)) {
      assertToolName(name)
      if (!isTool(value) && !isInfo(value)) {
        throw new RegistrationError(
          `Cannot register ${JSON.stringify(name)} from ${source}: the value is not a tool. Build it with Tool.make or Tool.define.`,
        )
      }
      const identity = Symbol(`${source}:${name}`)
      entries.set(name, Object.freeze({ identity, name, value, source, placement: this.placement }))
    }
    const aliases = new Map(Object.entries(options.aliases ?? {}).filter(([, name]) => entries.has(name)))
    const contribution: Contribution = { entries, aliases, active: true }
    this.#contributions.push(contribution)
    this.#changed()
    const close = () => {
      if (!contribution.active) return
      contribution.active = false
      const index = this.#contributions.indexOf(contribution)
      if (index >= 0) this.#contributions.splice(index, 1)
      this.#changed()
    }
    return { close, [Symbol.dispose]: close }
  }

  resolve(name: string): Entry | undefined {
    for (let i = this.#contributions.length - 1; i >= 0; i--) {
      const entry = this.#contributions[i]!.entries.get(name)
      if (entry) return entry
    }
    return undefined
  }

  /** The name an alias stands for, in the latest active registration that has it. */
  aliasOf(alias: string): string | undefined {
    for (let i = this.#contributions.length - 1; i >= 0; i--) {
      const name = this.#contributions[i]!.aliases.get(alias)
      if (name !== undefined) return name
    }
    return undefined
  }

  /** Names in first-registration order. */
  names(): string[] {
    const seen = new Set<string>()
    for (const contribution of this.#contributions)
      for (const name of contribution.entries.keys()) seen.add(name)
    return [...seen]
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  #changed(): void {
    for (const listener of this.#listeners) listener()
  }
}
