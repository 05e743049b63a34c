// Why a user's module (a tool file, a plugin) did not load, in one line a person can act on: which
// import or export failed and what to do, a syntax error only when it is one (with line:column).
import { existsSync, readFileSync, realpathSync } from "node:fs"
import * as nodeModule from "node:module"
import { basename, dirname, join, relative, sep } from "node:path"
import { fileURLToPath } from "node:url"
import { stripVTControlCharacters } from "node:util"
import { LoadError, nodeModulesReason } from "./import-module.ts"
import { OWN_MODULES, ownPackage } from "./resolve.ts"

/**
 * Why a module failed to load, in one line. `file` is the module that was loaded (its source is read
 * for the place of a syntax error the runtime did not locate).
 *
 * 1. An import of a package that is not installed: the package, the folder to install it in, the command.
 * 2. An import of a file that does not exist, or of a subpath a package does not export.
 * 3. An import of a name the module does not export (Node calls it a SyntaxError; it is not one).
 * 4. A syntax error, with line:column; TypeScript Node cannot strip (enums), said as such.
 * 5. Anything else the module threw while it ran, with the line in the file when the stack has it.
 */
export function loadFailure(error: unknown, file?: string): string {
  if (error instanceof LoadError) return error.message
  const err = error instanceof Error ? error : new Error(String(error))
  const code = (err as { code?: unknown }).code
  const message = stripVTControlCharacters(err.message)
  const first = headline(message) || "(no message)"
  if (code === "ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING") {
    const path = /for "([^"]+)"/.exec(message)?.[1]
    return path ? nodeModulesReason(path) : first
  }
  const missingExport = /^The requested module '([^']+)' does not provide an export named '([^']+)'/.exec(
    first,
  )
  if (missingExport) {
    const [, from, name] = missingExport as unknown as [string, string, string]
    return `it imports { ${name} } from "${from}", which has no export named ${name}${exportsOf(from)}; fix the name, or import it from where it is exported${at(place(err, file))}`
  }
  const notFound = notFoundReason(code, first, message, file)
  if (notFound) return notFound
  if (code === "ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX") {
    return `TypeScript that Node cannot run: ${first}${at(place(err, file))}; Node runs TypeScript by removing the types only, so write it without (an enum as an object of constants, a namespace as a module, parameter properties as fields)`
  }
  if (
    err.name === "SyntaxError" ||
    code === "ERR_INVALID_TYPESCRIPT_SYNTAX" ||
    /\bPARSE_ERROR\b/.test(message)
  ) {
    const where = place(err, file) ?? sourcePlace(file)
    return `syntax error: ${first.replace(/^\[PARSE_ERROR\]\s*/, "")}${at(where)}`
  }
  return `threw while loading: ${err.name}: ${first}${at(thrownAt(err, file))}`
}

/** 1 and 2: a module not found, or a subpath not exported; undefined for any other failure. */
function notFoundReason(
  code: unknown,
  first: string,
  message: string,
  file: string | undefined,
): string | undefined {
  const notExported = /^Package subpath '([^']+)' is not defined by "exports" in (.+?package\.json)/.exec(
    first,
  )
  if (code === "ERR_PACKAGE_PATH_NOT_EXPORTED" && notExported) {
    const [, subpath, manifest] = notExported as unknown as [string, string, string]
    const name = packageOf(manifest)
    const specifier = `${name}/${subpath.replace(/^\.\//, "")}`
    return `it imports "${specifier}", which ${name} does not export (its package.json "exports" has no "${subpath}"); import a path it exports`
  }
  if (
    code !== "ERR_MODULE_NOT_FOUND" &&
    code !== "MODULE_NOT_FOUND" &&
    !/^Cannot find (module|package)/.test(first)
  ) {
    return undefined
  }
  // ESM: "Cannot find package 'x' imported from /p/f.ts"; CommonJS: "Cannot find module 'x'" + "Require stack:\n- /p/f.ts".
  const target = /^Cannot find (?:package|module) '([^']+)'/.exec(first)?.[1]
  const importer =
    / imported from (.+)$/.exec(first)?.[1] ??
    /Require stack:\n- (.+)/.exec(message)?.[1] ??
    file ??
    undefined
  if (!target) return `an import cannot be resolved: ${first}`
  const via = importer && file && importer !== file ? ` (in ${importer})` : ""
  if (target.startsWith("/") || target.startsWith(".") || target.startsWith("file:")) {
    const path = target.startsWith("file:") ? fileURLToPath(target) : target
    const shown = importer ? relativeImport(importer, path) : path
    return `it imports "${shown}"${via}, which does not exist (${path}); create it, or fix the path`
  }
  if (Object.hasOwn(OWN_MODULES, target) || ownPackage(target)) {
    // Toolbelt answers it (resolve.ts), so the runtime loading the file did not ask Node's module hooks.
    return `it imports "${target}", which toolbelt answers with its own copy, but the runtime loading the file does not use Node's module hooks (Node ${process.versions.node}); run toolbelt on Node 22.15 or later, or install ${packageName(target)} where the file is`
  }
  const name = packageName(target)
  const dir = importer ? installDir(importer) : undefined
  return `it imports "${target}"${via}, which is not installed${dir ? ` in ${dir}` : ""}; run \`npm install ${name}\`${dir ? " there" : ""}, or remove the import`
}

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`, `name/sub` → `name`). */
function packageName(specifier: string): string {
  const parts = specifier.split("/")
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? specifier)
}

/** The package whose package.json this is (`…/node_modules/@scope/name/package.json` → `@scope/name`). */
function packageOf(manifest: string): string {
  const parts = dirname(manifest).split(sep)
  const at = parts.lastIndexOf("node_modules")
  return at < 0 ? basename(dirname(manifest)) : parts.slice(at + 1).join("/")
}

/**
 * Where `npm install` makes a package importable for this file: the nearest folder above it with a
 * package.json, else the config folder holding its `tool/` folder (`.opencode/`, as opencode installs
 * a tool file's dependencies), else the file's own folder.
 */
function installDir(importer: string): string {
  const path = importer.startsWith("file:") ? fileURLToPath(importer) : importer
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) return dir
    if (dirname(dir) === dir) break
  }
  const parts = dirname(path).split(sep)
  const config = parts.findLastIndex((part) => part === ".opencode" || part === ".toolbelt")
  return config >= 0 ? parts.slice(0, config + 1).join(sep) : dirname(path)
}

function relativeImport(importer: string, path: string): string {
  const from = importer.startsWith("file:") ? fileURLToPath(importer) : importer
  const shown = relative(dirname(from), path)
  return shown.startsWith(".") ? shown : `./${shown}`
}

/** What one of toolbelt's own modules exports, for a name it does not (zod's are too many to list). */
function exportsOf(specifier: string): string {
  const names = OWN_EXPORTS[specifier]
  return names ? ` (it exports ${names.join(", ")})` : ""
}

const OWN_EXPORTS: Readonly<Record<string, readonly string[]>> = {
  "@opencode-ai/plugin": ["tool", "Tool"],
  "@opencode-ai/plugin/tool": ["tool"],
  "agent-toolbelt/plugin": ["tool"],
  "toolbelt/plugin": ["tool"],
  "agent-toolbelt/tool": ["make", "define", "isInfo", "ToolFailure", "isToolFailure"],
  "toolbelt/tool": ["make", "define", "isInfo", "ToolFailure", "isToolFailure"],
}

interface Place {
  readonly line: number
  readonly column?: number | undefined
}

function at(where: Place | undefined): string {
  if (!where) return ""
  return ` (line ${where.line}${where.column !== undefined ? `:${where.column}` : ""})`
}

/**
 * Where the runtime says the error is: Node's stack head (`/p/f.ts:2`, then the line and a caret under
 * the place), a `loc`, or `file.ts:3:10` in the message.
 */
function place(error: Error, file: string | undefined): Place | undefined {
  const loc = (error as { loc?: { line?: unknown; column?: unknown } }).loc
  if (typeof loc?.line === "number") {
    return { line: loc.line, column: typeof loc.column === "number" ? loc.column + 1 : undefined }
  }
  const lines = (error.stack ?? "").split("\n")
  // The head names the file (a path or file: URL), or nothing at all (Node's parser given only source).
  const head = /^(?:file:\/\/)?((?:\/|[A-Za-z]:\\)[^\n]*?|):(\d+)$/.exec(lines[0] ?? "")
  if (head && (!file || !head[1] || sameFile(head[1], file))) {
    const caret = lines.slice(1, 8).find((line) => /^\s*\^+\s*$/.test(line))
    return { line: Number(head[2]), column: caret ? caret.indexOf("^") + 1 : undefined }
  }
  const inMessage = /\.[cm]?[jt]sx?:(\d+):(\d+)/.exec(stripVTControlCharacters(error.message))
  return inMessage ? { line: Number(inMessage[1]), column: Number(inMessage[2]) } : undefined
}

/** Whether a path the runtime shows is the file (which the runtime names by its real path, links resolved). */
function sameFile(shown: string, file: string): boolean {
  const path = decodeURIComponent(shown)
  if (path === file) return true
  try {
    return path === realpathSync(file)
  } catch {
    return false
  }
}

/**
 * The place of a syntax error the runtime did not locate (V8 names none for an ES module): the file
 * parsed again by Node's own TypeScript parser, which reports one. None when that parser accepts it.
 */
function sourcePlace(file: string | undefined): Place | undefined {
  const strip = (nodeModule as { stripTypeScriptTypes?: (code: string) => string }).stripTypeScriptTypes
  if (!file || typeof strip !== "function") return undefined
  let source: string
  try {
    source = readFileSync(file, "utf8")
  } catch {
    return undefined
  }
  try {
    strip(source)
    return undefined
  } catch (error) {
    return place(error as Error, undefined)
  }
}

/** Where in `file` an error thrown while it ran came from: its first stack frame in that file. */
function thrownAt(error: Error, file: string | undefined): Place | undefined {
  if (!file) return undefined
  for (const line of (error.stack ?? "").split("\n").slice(1)) {
    const frame = /\(?((?:file:\/\/)?[^\s()]+):(\d+):(\d+)\)?$/.exec(line.trim())
    if (!frame) continue
    const path = frame[1]!.startsWith("file:") ? fileURLToPath(frame[1]!) : frame[1]!
    if (sameFile(path, file)) return { line: Number(frame[2]), column: Number(frame[3]) }
  }
  return undefined
}

/** The first line that says something: headers such as "Transform failed with 1 error:" are skipped. */
function headline(message: string): string {
  const lines = message
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
  return lines.find((line) => !line.endsWith(":")) ?? lines[0] ?? ""
}
