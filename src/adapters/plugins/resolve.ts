// Where the imports of a user's tool file or plugin go. A tool file written as the spec or opencode's
// docs write it imports `@opencode-ai/plugin` and `zod`, and the project often has no node_modules at
// all: toolbelt answers those imports with its own modules and its own copy of zod, whatever the
// project has installed (its zod may be another major version, whose schemas toolbelt cannot read).
import * as nodeModule from "node:module"
import { extname, sep } from "node:path"
import { fileURLToPath } from "node:url"

// `.ts` in the sources, `.js` in dist/ (the bundle keeps each module's own URL, scripts/bundle-cli.js).
const ext = extname(fileURLToPath(import.meta.url))
const own = (path: string) => new URL(`${path}${ext}`, import.meta.url).href

/** Toolbelt's helper for writing tools (`tool()`, `tool.schema`): `agent-toolbelt/plugin`. */
export const HELPER_URL = own("./index")
/** opencode's package as toolbelt answers for it: the helper plus `Tool` (the spec's `Tool.define`). */
export const OPENCODE_URL = own("./opencode-plugin")
/** The tool API (`Tool.make`, `Tool.define`): `agent-toolbelt/tool`. */
export const TOOL_API_URL = own("../../runtime/tool/index")

/**
 * Specifiers answered by one of toolbelt's modules, from any importer: toolbelt's package names (and
 * the name it had before the package was renamed, which files written then still import) and opencode's.
 */
export const OWN_MODULES: Readonly<Record<string, string>> = {
  "agent-toolbelt/plugin": HELPER_URL,
  "toolbelt/plugin": HELPER_URL,
  "@opencode-ai/plugin": OPENCODE_URL,
  "@opencode-ai/plugin/tool": HELPER_URL,
  "agent-toolbelt/tool": TOOL_API_URL,
  "toolbelt/tool": TOOL_API_URL,
}

/**
 * Packages (and their subpaths, `zod/v4`) resolved from toolbelt's own dependencies when a file outside
 * any node_modules imports them: the user's tool files and what they import relatively. Installed
 * packages keep resolving their own dependencies (a library built on zod 3 still gets zod 3).
 */
export const OWN_PACKAGES: readonly string[] = ["zod"]

/** Every specifier toolbelt answers for a user's file (for messages and for hosts that miss the hook). */
export const ANSWERED: readonly string[] = [...Object.keys(OWN_MODULES), ...OWN_PACKAGES]

/** Whether the specifier is one of `OWN_PACKAGES` or a subpath of one. */
export function ownPackage(specifier: string): boolean {
  return OWN_PACKAGES.some((name) => specifier === name || specifier.startsWith(`${name}/`))
}

function underNodeModules(url: string | undefined): boolean {
  if (!url?.startsWith("file:")) return false
  return fileURLToPath(url).split(sep).includes("node_modules")
}

let installed = false

/**
 * Installs the resolution, once per process: a synchronous Node hook (`module.registerHooks`, Node
 * 22.15+; it applies to `import()` and `require()` alike), an off-thread one (`module.register`) on
 * older Node, or a Bun plugin on Bun. Every other specifier is left to the runtime.
 */
export function installResolution(): void {
  if (installed) return
  installed = true
  const bun = (globalThis as { Bun?: BunLike }).Bun
  if (bun) {
    installBun(bun)
    return
  }
  if (typeof nodeModule.registerHooks === "function") {
    nodeModule.registerHooks({
      resolve(specifier, context, nextResolve) {
        const url = OWN_MODULES[specifier]
        if (url) return { url, shortCircuit: true }
        if (ownPackage(specifier) && !underNodeModules(context.parentURL)) {
          return nextResolve(specifier, { ...context, parentURL: HELPER_URL })
        }
        return nextResolve(specifier, context)
      },
    })
    return
  }
  if (typeof nodeModule.register === "function") {
    nodeModule.register(`data:text/javascript,${encodeURIComponent(OFF_THREAD_HOOKS)}`, {
      data: { modules: OWN_MODULES, packages: OWN_PACKAGES, helper: HELPER_URL },
    })
  }
}

// The same rule for Node's off-thread hooks, which run in a worker from a module of their own (plain
// JavaScript: the worker cannot be handed a function).
const OFF_THREAD_HOOKS = `
let modules = {}, packages = [], helper
export function initialize(data) { modules = data.modules; packages = data.packages; helper = data.helper }
export async function resolve(specifier, context, next) {
  if (modules[specifier]) return { url: modules[specifier], shortCircuit: true }
  const parent = context.parentURL ?? ""
  const owned = packages.some((name) => specifier === name || specifier.startsWith(name + "/"))
  if (owned && !/[\\\\/]node_modules[\\\\/]/.test(decodeURIComponent(parent))) {
    return next(specifier, { ...context, parentURL: helper })
  }
  return next(specifier, context)
}
`

interface BunLike {
  plugin(plugin: {
    name: string
    setup(build: {
      onResolve(options: { filter: RegExp }, resolve: (args: BunArgs) => { path: string }): void
    }): void
  }): void
  resolveSync(specifier: string, from: string): string
}

interface BunArgs {
  readonly path: string
  readonly importer: string
}

function installBun(bun: BunLike): void {
  const helperDir = fileURLToPath(new URL(".", HELPER_URL))
  const modules = new RegExp(`^(${Object.keys(OWN_MODULES).map(escapeRegExp).join("|")})$`)
  const packages = new RegExp(`^(${OWN_PACKAGES.map(escapeRegExp).join("|")})(/.*)?$`)
  bun.plugin({
    name: "toolbelt-own-modules",
    setup(build) {
      build.onResolve({ filter: modules }, (args) => ({ path: fileURLToPath(OWN_MODULES[args.path]!) }))
      build.onResolve({ filter: packages }, (args) => ({
        path: args.importer.split(sep).includes("node_modules")
          ? bun.resolveSync(args.path, args.importer)
          : bun.resolveSync(args.path, helperDir),
      }))
    },
  })
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")
}
