import { realpathSync } from "node:fs"
import { readFile } from "node:fs/promises"
import * as nodeModule from "node:module"
import { extname, sep } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { stripVTControlCharacters } from "node:util"

/**
 * The specifiers that resolve to toolbelt's own helper (`src/plugin/index.ts`): toolbelt's package name
 * for it (and the name it had before the package was renamed, which files written then still import),
 * and opencode's, so a custom tool written for opencode loads without its package installed.
 */
export const HELPER_SPECIFIERS: readonly string[] = [
  "agent-toolbelt/plugin",
  "toolbelt/plugin",
  "@opencode-ai/plugin",
  "@opencode-ai/plugin/tool",
]

/** A module that could not be loaded; its message is the reason, ready to show. */
export class LoadError extends Error {
  override readonly name = "LoadError"
}

const TYPESCRIPT = new Set([".ts", ".mts", ".cts"])

/** Our helper module, beside this file in the sources (`.ts`) or in the build (`.js`). */
const helperUrl = new URL(`./index${extname(fileURLToPath(import.meta.url))}`, import.meta.url).href

let resolving = false

/**
 * Makes the helper's specifiers resolve to our helper, once per process: a synchronous Node resolution
 * hook (`module.registerHooks`, Node 22.15+), or a Bun plugin on Bun. Every other specifier is left to
 * the runtime.
 */
export function resolveHelper(): void {
  if (resolving) return
  resolving = true
  const bun = (globalThis as { Bun?: BunLike }).Bun
  if (bun) {
    const path = fileURLToPath(helperUrl)
    const filter = new RegExp(`^(${HELPER_SPECIFIERS.map(escapeRegExp).join("|")})$`)
    bun.plugin({
      name: "toolbelt-plugin-helper",
      setup: (build) => build.onResolve({ filter }, () => ({ path })),
    })
    return
  }
  if (typeof nodeModule.registerHooks !== "function") return
  nodeModule.registerHooks({
    resolve(specifier, context, nextResolve) {
      if (HELPER_SPECIFIERS.includes(specifier)) return { url: helperUrl, shortCircuit: true }
      return nextResolve(specifier, context)
    },
  })
}

interface BunLike {
  plugin(plugin: {
    name: string
    setup(build: { onResolve(options: { filter: RegExp }, resolve: () => { path: string }): void }): void
  }): void
}

/**
 * Loads a user's module (a custom tool file, a plugin) as the runtime loads any module: TypeScript
 * without a build step (Node strips types), the helper's specifiers resolved to our helper.
 *
 * 1. A TypeScript file under `node_modules` is refused with the reason (Node does not strip types there).
 * 2. `import()` it.
 * 3. When the host's `import()` is not Node's own (a test runner, a bundler's dev server) it does not
 *    see Node's resolution hook and fails on the helper's specifiers: then load it with Node's own
 *    `require()`, which sees the hook and loads ES modules too (those without top-level await).
 */
export async function importModule(file: string): Promise<Record<string, unknown>> {
  resolveHelper()
  refuseStrippingUnderNodeModules(file)
  try {
    return (await import(pathToFileURL(file).href)) as Record<string, unknown>
  } catch (error) {
    if (!(await hostMissedHelper(error, file))) throw error
    return asNamespace(nodeModule.createRequire(import.meta.url)(file))
  }
}

function refuseStrippingUnderNodeModules(file: string): void {
  if ((globalThis as { Bun?: unknown }).Bun || !TYPESCRIPT.has(extname(file))) return
  let real = file
  try {
    real = realpathSync(file)
  } catch {
    // Missing: import() reports it.
  }
  if (real.split(sep).includes("node_modules") || file.split(sep).includes("node_modules")) {
    throw new LoadError(nodeModulesReason(real))
  }
}

function nodeModulesReason(file: string): string {
  return `${file} is TypeScript under node_modules, and Node does not strip types from files under node_modules; use its compiled JavaScript instead, or move the file out of node_modules`
}

/** What `require()` gives, shaped like what `import()` gives (CommonJS exports become `default`). */
function asNamespace(loaded: unknown): Record<string, unknown> {
  if (Object.prototype.toString.call(loaded) === "[object Module]") return loaded as Record<string, unknown>
  const named = typeof loaded === "object" && loaded !== null ? (loaded as Record<string, unknown>) : {}
  return { ...named, default: loaded }
}

/**
 * Whether the host's `import()` failed on one of the helper's specifiers: its error names one, or it is
 * a resolution failure in a file that imports one (some hosts name only the subpath they looked for).
 */
async function hostMissedHelper(error: unknown, file: string): Promise<boolean> {
  const message = error instanceof Error ? error.message : String(error)
  const quoted = (specifier: string) => new RegExp(`['"\`]${escapeRegExp(specifier)}['"\`]`)
  if (HELPER_SPECIFIERS.some((specifier) => quoted(specifier).test(message))) return true
  if (!/cannot find|failed to resolve|could not resolve|not exported|not found/i.test(message)) return false
  const source = await readFile(file, "utf8").catch(() => "")
  return HELPER_SPECIFIERS.some((specifier) => quoted(specifier).test(source))
}

/**
 * Why a module failed to load, in one line: the kind of failure and the first line of the error
 * (syntax errors with their line when the runtime gives it).
 */
export function loadFailure(error: unknown): string {
  if (error instanceof LoadError) return error.message
  const err = error instanceof Error ? error : new Error(String(error))
  const code = (err as { code?: unknown }).code
  const message = stripVTControlCharacters(err.message)
  const first = headline(message) || "(no message)"
  if (code === "ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING") {
    const file = /for "([^"]+)"/.exec(message)?.[1]
    return file ? nodeModulesReason(file) : first
  }
  if (
    err.name === "SyntaxError" ||
    code === "ERR_INVALID_TYPESCRIPT_SYNTAX" ||
    /\bPARSE_ERROR\b/.test(message)
  ) {
    const line = lineOf(err, message)
    return `syntax error: ${first.replace(/^\[PARSE_ERROR\]\s*/, "")}${line ? ` (line ${line})` : ""}`
  }
  if (
    code === "ERR_MODULE_NOT_FOUND" ||
    code === "MODULE_NOT_FOUND" ||
    /^Cannot find (module|package)/.test(first)
  ) {
    const hint =
      HELPER_SPECIFIERS.some((specifier) => first.includes(`'${specifier}'`)) &&
      typeof nodeModule.registerHooks !== "function"
        ? " (resolving it to toolbelt's helper needs Node 22.15 or later)"
        : ""
    return `cannot resolve an import: ${first}${hint}`
  }
  return `threw while loading: ${err.name}: ${first}`
}

/** The line of a syntax error, wherever the runtime put it (Node's stack head, a `loc`, the message). */
function lineOf(error: Error, message: string): number | undefined {
  const loc = (error as { loc?: { line?: unknown } }).loc
  if (typeof loc?.line === "number") return loc.line
  const head = error.stack?.split("\n")[0] ?? ""
  const match =
    /^(?:file:\/\/)?(?:\/|[A-Za-z]:\\).*:(\d+)$/.exec(head) ?? /\.[cm]?[jt]sx?:(\d+):\d+/.exec(message)
  return match ? Number(match[1]) : undefined
}

/** The first line that says something: headers such as "Transform failed with 1 error:" are skipped. */
function headline(message: string): string {
  const lines = message
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
  return lines.find((line) => !line.endsWith(":")) ?? lines[0] ?? ""
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")
}
