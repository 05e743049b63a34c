import { resolve } from "node:path"
import { type Config, loadConfig } from "../config/config.ts"
import { defaultDataDir, outputDir } from "../output/data-dir.ts"
import { type Limits, resolveLimits } from "../output/limits.ts"
import { OutputStore } from "../output/store.ts"
import type { PermissionService } from "../permission/service.ts"
import { type Decide, RulePermissions } from "../permission/simple.ts"
import { installPlugins, type PluginLoadError } from "../plugins/load.ts"
import { Registry } from "../registry/registry.ts"
import type { Handle } from "../registry/tool-set.ts"
import { type CallRequest, type PartSink, type Settlement, settle } from "../settle/settle.ts"
import { builtins } from "../tools/index.ts"
import { ascending } from "../util/id.ts"

export interface ToolbeltOptions {
  /** The project directory (default: the current directory). */
  readonly directory?: string
  /** Where the store and the output store live (default: DESIGN.md's data dir). */
  readonly dataDir?: string
  /** Config to use instead of reading `toolbelt.json(c)` files. */
  readonly config?: Config
  /** The permission engine (default: rules from config, `decide` for open asks). */
  readonly permission?: PermissionService
  /** Answers asks the rules leave open (a TTY prompt, `--yes`); without it they are rejected. */
  readonly decide?: Decide
  /** Register the built-in tools (default true). */
  readonly builtins?: boolean
  /** Receives every tool part state. */
  readonly parts?: PartSink
  /** Keep swept output files for this long (default 7 days) and sweep hourly. */
  readonly sweep?: boolean
}

/** A call as a library user makes it: the ids default to fresh ones. */
export type CallInput = Omit<CallRequest, "sessionID" | "messageID" | "agent" | "callID"> &
  Partial<Pick<CallRequest, "sessionID" | "messageID" | "agent" | "callID">>

export interface Toolbelt {
  readonly directory: string
  readonly dataDir: string
  readonly config: Config
  readonly registry: Registry
  readonly permission: PermissionService
  readonly store: OutputStore
  readonly limits: Limits
  readonly pluginErrors: readonly PluginLoadError[]
  call(input: CallInput): Promise<Settlement>
  close(): void
}

// Until the permission engine reads policy from config: inside the project everything is allowed,
// while paths outside it and repeated identical calls ask.
const DEFAULT_RULES = [
  { permission: "*", pattern: "*", action: "allow" },
  { permission: "external_directory", pattern: "*", action: "ask" },
  { permission: "doom_loop", pattern: "*", action: "ask" },
] as const

/** Puts the runtime together for one project: config, registry with built-ins and plugins, store. */
export async function createToolbelt(options: ToolbeltOptions = {}): Promise<Toolbelt> {
  const directory = resolve(options.directory ?? process.cwd())
  const config = options.config ?? (await loadConfig(directory)).config
  const dataDir = options.dataDir ?? defaultDataDir()
  const store = new OutputStore({ dir: outputDir(dataDir) })
  const limits = resolveLimits(config.tool_output)
  const registry = new Registry()
  const handles: Handle[] = []
  if (options.builtins !== false) handles.push(registry.register(builtins(), { source: "builtin" }))
  const plugins = await installPlugins(config.plugin ?? [], { directory, registry })
  handles.push(...plugins.handles)
  const permission =
    options.permission ??
    new RulePermissions({ ...(options.decide ? { decide: options.decide } : {}), rules: DEFAULT_RULES })
  const sweeper = options.sweep === false ? undefined : store.startSweeper()

  return {
    directory,
    dataDir,
    config,
    registry,
    permission,
    store,
    limits,
    pluginErrors: plugins.errors,
    call: (input) =>
      settle(
        {
          ...input,
          sessionID: input.sessionID ?? ascending("ses"),
          messageID: input.messageID ?? ascending("msg"),
          agent: input.agent ?? "build",
          callID: input.callID ?? ascending("call"),
          extra: { directory, ...(input.extra ?? {}) },
        },
        {
          registry,
          permission,
          store,
          limits,
          ...(options.parts ? { parts: options.parts } : {}),
          canDelegate: (agent) =>
            registry.resolve("task") !== undefined && permission.evaluate("task", "*", agent) !== "deny",
        },
      ),
    close() {
      sweeper?.stop()
      for (const handle of handles.splice(0)) handle.close()
    },
  }
}
