import { createRequire } from "node:module"
import { isAbsolute, join } from "node:path"
import { fileURLToPath } from "node:url"
import { HOOK_NAMES, type HookMap, type Hooks } from "../../runtime/hooks/hooks.ts"
import type { Registry } from "../../runtime/registry/registry.ts"
import type { Handle, Registrable } from "../../runtime/registry/tool-set.ts"
import { fromPlugin, isToolbeltTool } from "./from-plugin.ts"
import { importModule, LoadError } from "./import-module.ts"
import type { Plugin, PluginHooks, PluginInput } from "./index.ts"
import { loadFailure } from "./load-failure.ts"

export type { Plugin, PluginHooks, PluginInput }

/** A plugin, tool file, skill or agent file that did not load: which one, and why (with what to do). */
export interface PluginLoadError {
  readonly spec: string
  readonly error: string
  /** What it is, for the person told: "plugin" unless said. */
  readonly kind?: "plugin" | "tool file" | "skill" | "agent file"
  /** The tools it keeps out, when known (a tool file's). */
  readonly tools?: readonly string[]
}

export interface InstallPluginsOptions {
  readonly directory: string
  /** The repository root plugins and their tools are told about (default: `directory`). */
  readonly worktree?: string
  readonly registry: Registry
  readonly hooks?: Hooks
  /**
   * Where a plugin named as a package is resolved from (its `node_modules` and those above it); default
   * `directory`. An untrusted project's `node_modules` must not answer for the user's own plugins.
   */
  readonly packagesFrom?: string
  /** Added to "cannot find the plugin" when `packagesFrom` is not the project (why it was not looked for there). */
  readonly packagesNote?: string
}

/**
 * Loads the plugins listed in config (`plugin: [...]`) once for the project and registers what they
 * contribute.
 *
 * 1. Resolve each spec (a path, a `file:` URL, or a package from the project's `node_modules`; an
 *    npm version suffix is ignored) and import it; the same module listed twice loads once.
 * 2. Initialise: every function the module exports is a plugin (opencode's shape), called once with
 *    `{directory, worktree}` and returning hooks and a `tool` record; a default export that is an
 *    object, or else the module itself, is such a record directly.
 * 3. Tools: toolbelt tools as they are, opencode-format definitions converted (`fromPlugin`); all
 *    registered in the project placement with source `plugin:<spec>`. Hooks go to the hook registry.
 * 4. A plugin that fails at any step is reported (which one, why) and contributes nothing; the
 *    others still load.
 */
export async function installPlugins(
  specs: readonly string[],
  options: InstallPluginsOptions,
): Promise<{ handles: Handle[]; errors: PluginLoadError[] }> {
  const { directory, registry } = options
  const input: PluginInput = { directory, worktree: options.worktree ?? directory }
  const handles: Handle[] = []
  const errors: PluginLoadError[] = []
  const seen = new Set<string>()
  for (const spec of specs) {
    let module: Record<string, unknown>
    let file: string | undefined
    try {
      file = resolvePlugin(spec, options.packagesFrom ?? directory, options.packagesNote)
      if (seen.has(file)) continue
      seen.add(file)
      module = await importModule(file)
    } catch (error) {
      errors.push({ spec, error: loadFailure(error, file) })
      continue
    }
    const source = `plugin:${spec}`
    const own: Handle[] = []
    try {
      const tools: Record<string, Registrable> = {}
      const hookSets: Partial<HookMap>[] = []
      for (const contribution of await contributionsOf(module, input, spec)) {
        for (const [name, value] of Object.entries(contribution.tool ?? {})) {
          tools[name] = isToolbeltTool(value) ? value : fromPlugin(name, value, input)
        }
        const named: Partial<Record<string, unknown>> = {}
        for (const name of HOOK_NAMES) if (contribution[name] !== undefined) named[name] = contribution[name]
        if (Object.keys(named).length) hookSets.push(named as Partial<HookMap>)
      }
      if (Object.keys(tools).length) own.push(registry.register(tools, { placement: "project", source }))
      for (const named of options.hooks ? hookSets : []) {
        const registration = options.hooks!.register(named, { source })
        own.push({ close: () => registration.close(), [Symbol.dispose]: () => registration.close() })
      }
      handles.push(...own)
    } catch (error) {
      for (const handle of own) handle.close()
      errors.push({ spec, error: firstLine(error) })
    }
  }
  return { handles, errors }
}

/** The file a plugin spec names. */
function resolvePlugin(spec: string, directory: string, note = ""): string {
  if (spec.startsWith("file:")) return fileURLToPath(spec)
  if (isAbsolute(spec)) return spec
  // opencode lists npm plugins with a version (`name@1.2.3`); toolbelt loads the installed one.
  const name = /^(@[^/@]+\/[^@]+|[^@]+)@[^/]*$/.exec(spec)?.[1] ?? spec
  try {
    return createRequire(join(directory, "package.json")).resolve(name)
  } catch (error) {
    const reason = firstLine(error)
    const hint =
      /^Cannot find/.test(reason) && !name.startsWith(".") ? ` (install it: npm install ${name})` : ""
    throw new LoadError(`Cannot find the plugin: ${reason}${hint}${note && ` (${note})`}`)
  }
}

/**
 * What a plugin module contributes: one object of hooks (and tools) per plugin it holds. A default
 * export that is an object is the plugin; otherwise every exported function is one (each called
 * once); a module with neither is itself the object.
 */
async function contributionsOf(
  module: Record<string, unknown>,
  input: PluginInput,
  spec: string,
): Promise<PluginHooks[]> {
  const contributions: PluginHooks[] = []
  if (isRecord(module.default)) contributions.push(module.default as PluginHooks)
  else {
    const functions: Plugin[] = []
    for (const value of [module.default, ...Object.values(module)]) {
      if (typeof value === "function" && !functions.includes(value as Plugin)) functions.push(value as Plugin)
    }
    for (const plugin of functions) {
      const hooks = await plugin(input)
      if (hooks === undefined || hooks === null) continue
      if (typeof hooks !== "object") {
        throw new TypeError(
          `Plugin ${spec}: ${plugin.name || "an exported function"} returned ${typeof hooks}; a plugin returns an object of hooks (and a "tool" record).`,
        )
      }
      contributions.push(hooks)
    }
    if (!functions.length) {
      if (!isRecord(module.tool) && !HOOK_NAMES.some((name) => name in module)) {
        throw new TypeError(
          `Plugin ${spec} must export a function, or an object with hooks or a "tool" record.`,
        )
      }
      contributions.push(module as PluginHooks)
    }
  }
  // A `tool` record exported beside the plugin.
  const tool = module.tool
  if (isRecord(tool) && !contributions.some((contribution) => contribution.tool === tool)) {
    contributions.push({ tool: tool as PluginHooks["tool"] & object })
  }
  return contributions
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return message.split("\n")[0] ?? message
}
