// Step 4 of building a toolbelt: every tool it offers, in opencode's order.

import type { McpServers } from "../adapters/mcp-client/index.ts"
import { installCustomTools } from "../adapters/plugins/custom-tools.ts"
import { installPlugins, type PluginLoadError } from "../adapters/plugins/load.ts"
import type { Store } from "../platform/store/store.ts"
import type { Logger } from "../platform/util/log.ts"
import { type Config, globalConfigDir } from "../runtime/config/config.ts"
import type { ProjectTrust } from "../runtime/config/trust/project-trust.ts"
import type { Hooks } from "../runtime/hooks/hooks.ts"
import type { Registry } from "../runtime/registry/registry.ts"
import type { Handle } from "../runtime/registry/tool-set.ts"
import { builtins } from "../tools/index.ts"

export interface Registered {
  /** One per contribution; closing them removes exactly what was registered here. */
  readonly handles: Handle[]
  /** Plugins and custom tool files that failed to load (which one, why); the rest loaded. */
  readonly errors: PluginLoadError[]
}

/**
 * Registers the tools: built-ins, then tool files (the config dirs, then `.toolbelt/tools/` and
 * `.opencode/tools/` of a trusted project), then plugins (their tools and hooks); a later registration
 * of a name wins. `config` holds only the user's plugins when the project is untrusted, and a plugin
 * named as a package is then resolved from the user's config dir, not from the project's node_modules.
 */
export async function registerTools({
  registry,
  hooks,
  config,
  directory,
  worktree,
  env,
  trust,
  builtins: withBuiltins = true,
  customTools = true,
}: {
  registry: Registry
  hooks: Hooks
  config: Config
  directory: string
  worktree: string
  env: NodeJS.ProcessEnv
  trust: Pick<ProjectTrust, "trusted" | "howToTrust">
  builtins?: boolean | undefined
  customTools?: boolean | undefined
}): Promise<Registered> {
  const handles: Handle[] = []
  if (withBuiltins) handles.push(registry.register(builtins(), { source: "builtin" }))
  const custom = customTools
    ? await installCustomTools({ directory, worktree, registry, env, project: trust.trusted })
    : { handles: [], errors: [] }
  handles.push(...custom.handles)
  const plugins = await installPlugins(config.plugin ?? [], {
    directory,
    worktree,
    registry,
    hooks,
    ...(trust.trusted
      ? {}
      : {
          packagesFrom: globalConfigDir(env),
          packagesNote: `not looked for in the project's node_modules until the project is trusted: ${trust.howToTrust}`,
        }),
  })
  handles.push(...plugins.handles)
  return {
    handles,
    errors: [
      ...custom.errors.map((failure) => ({
        spec: failure.file,
        error: failure.error,
        kind: "tool file" as const,
        tools: failure.tools,
      })),
      ...plugins.errors,
    ],
  }
}

/** Connects the MCP servers listed under `mcp` in config and registers their tools; none listed: none. */
export async function connectMcp({
  registry,
  store,
  config,
  directory,
  env,
  log,
}: {
  registry: Registry
  store: Store
  config: Config
  directory: string
  env: NodeJS.ProcessEnv
  log: Logger
}): Promise<McpServers | undefined> {
  if (!config.mcp) return undefined
  // Loaded only when servers are configured: the MCP SDK is not cheap to import.
  const { connectMcpServers } = await import("../adapters/mcp-client/index.ts")
  return connectMcpServers({ config: config.mcp, registry, store, directory, env, log })
}
