import { realpathSync } from "node:fs"
import { readFile } from "node:fs/promises"
import * as nodeModule from "node:module"
import { extname, sep } from "node:path"
import { pathToFileURL } from "node:url"
import { ANSWERED, escapeRegExp, installResolution } from "./resolve.ts"

/** A module that could not be loaded; its message is the reason, ready to show. */
export class LoadError extends Error {
  override readonly name = "LoadError"
}

const TYPESCRIPT = new Set([".ts", ".mts", ".cts"])

/**
 * Loads a user's module (a custom tool file, a plugin) as the runtime loads any module: TypeScript
 * without a build step (Node strips types), the imports toolbelt answers (its helper, opencode's
 * package, zod) resolved to toolbelt's own modules (resolve.ts).
 *
 * 1. A TypeScript file under `node_modules` is refused with the reason (Node does not strip types there).
 * 2. `import()` it.
 * 3. When the host's `import()` is not Node's own (a test runner, a bundler's dev server) it does not
 *    see Node's resolution hook and fails on the specifiers toolbelt answers: then load it with Node's own
 *    `require()`, which sees the hook and loads ES modules too (those without top-level await).
 */
export async function importModule(file: string): Promise<Record<string, unknown>> {
  installResolution()
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

export function nodeModulesReason(file: string): string {
  return `${file} is TypeScript under node_modules, and Node does not strip types from files under node_modules; use its compiled JavaScript instead, or move the file out of node_modules`
}

/** What `require()` gives, shaped like what `import()` gives (CommonJS exports become `default`). */
function asNamespace(loaded: unknown): Record<string, unknown> {
  if (Object.prototype.toString.call(loaded) === "[object Module]") return loaded as Record<string, unknown>
  const named = typeof loaded === "object" && loaded !== null ? (loaded as Record<string, unknown>) : {}
  return { ...named, default: loaded }
}

/**
 * Whether the host's `import()` failed on a specifier toolbelt answers: its error names one, or it is
 * a resolution failure in a file that imports one (some hosts name only the subpath they looked for).
 */
async function hostMissedHelper(error: unknown, file: string): Promise<boolean> {
  const message = error instanceof Error ? error.message : String(error)
  const quoted = (specifier: string) => new RegExp(`['"\`]${escapeRegExp(specifier)}(/[^'"\`]*)?['"\`]`)
  if (ANSWERED.some((specifier) => quoted(specifier).test(message))) return true
  if (!/cannot find|failed to resolve|could not resolve|not exported|not found/i.test(message)) return false
  const source = await readFile(file, "utf8").catch(() => "")
  return ANSWERED.some((specifier) => quoted(specifier).test(source))
}
