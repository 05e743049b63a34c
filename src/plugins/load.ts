import { createRequire } from "node:module"
import { isAbsolute, join } from "node:path"
import { pathToFileURL } from "node:url"
import { HOOK_NAMES, type HookMap, type Hooks } from "../hooks/hooks.ts"
import type { Registry } from "../registry/registry.ts"
import type { Handle, Registrable } from "../registry/tool-set.ts"

/** What a plugin module receives when it is installed for a project. */
export interface PluginInput {
  readonly directory: string
}

/** What a plugin contributes: tools, and hooks by name (`tool.execute.before`, `permission.ask`, ...). */
export type PluginHooks = Partial<HookMap> & {
  readonly tool?: Readonly<Record<string, Registrable>>
}

export type Plugin = (input: PluginInput) => PluginHooks | Promise<PluginHooks>

export interface PluginLoadError {
  readonly spec: string
  readonly error: string
}

/**
 * Loads the plugins listed in config and registers their tools for the project. A plugin that fails
 * to load is reported (which one, why) and skipped; the others still load.
 */
export async function installPlugins(
  specs: readonly string[],
  options: { directory: string; registry: Registry; hooks?: Hooks },
): Promise<{ handles: Handle[]; errors: PluginLoadError[] }> {
  const handles: Handle[] = []
  const errors: PluginLoadError[] = []
  for (const spec of specs) {
    try {
      const hooks = await loadPlugin(spec, options.directory)
      if (hooks.tool && Object.keys(hooks.tool).length) {
        handles.push(
          options.registry.register(hooks.tool, { placement: "project", source: `plugin:${spec}` }),
        )
      }
      const named: Partial<HookMap> = {}
      for (const name of HOOK_NAMES) if (hooks[name]) (named as Record<string, unknown>)[name] = hooks[name]
      if (options.hooks && Object.keys(named).length) {
        const registration = options.hooks.register(named, { source: `plugin:${spec}` })
        handles.push({ close: () => registration.close(), [Symbol.dispose]: () => registration.close() })
      }
    } catch (error) {
      errors.push({ spec, error: error instanceof Error ? error.message : String(error) })
    }
  }
  return { handles, errors }
}

async function loadPlugin(spec: string, directory: string): Promise<PluginHooks> {
  const url = isAbsolute(spec)
    ? pathToFileURL(spec).href
    : pathToFileURL(createRequire(join(directory, "package.json")).resolve(spec)).href
  const module = (await import(url)) as Record<string, unknown>
  const entry = module.default ?? module
  const hooks = typeof entry === "function" ? await (entry as Plugin)({ directory }) : entry
  if (typeof hooks !== "object" || hooks === null) {
    throw new Error(`plugin ${spec} must export a function or an object with a "tool" record`)
  }
  const tool = (hooks as PluginHooks).tool ?? (module.tool as PluginHooks["tool"])
  return { ...(hooks as PluginHooks), ...(tool ? { tool } : {}) }
}
