import { type Dirent, readdirSync, statSync } from "node:fs"
import { basename, dirname, extname, join, relative } from "node:path"
import { asSentence } from "../../platform/text/sentence.ts"
import { globalDirs, isInside, projectLevels } from "../../runtime/config/search-dirs.ts"
import { assertToolName } from "../../runtime/registry/name.ts"
import type { Registry } from "../../runtime/registry/registry.ts"
import type { Handle, Registrable } from "../../runtime/registry/tool-set.ts"
import { isInfo } from "../../runtime/tool/index.ts"
import { checkDef, DefinitionError, fromPlugin, isToolbeltTool, isToolDefinition } from "./from-plugin.ts"
import { importModule } from "./import-module.ts"
import type { PluginLoadError } from "./load.ts"
import { loadFailure } from "./load-failure.ts"

/** The extensions of custom tool files (`{tool,tools}/*.{js,ts,mjs,mts}`). */
const EXTENSIONS = new Set([".js", ".ts", ".mjs", ".mts"])
const FOLDERS = ["tool", "tools"]
const PROJECT_FOLDERS = [".opencode", ".toolbelt"]

export interface CustomToolsOptions {
  /** The project directory: the walk up for `.toolbelt/` and `.opencode/` starts here. */
  readonly directory: string
  /** The repository root: the walk up stops here (inclusive). */
  readonly worktree: string
  readonly registry: Registry
  /** For the global config dirs (`HOME`, `XDG_CONFIG_HOME`, `TOOLBELT_CONFIG_DIR`); default `process.env`. */
  readonly env?: NodeJS.ProcessEnv
  /**
   * Whether the project's own tool dirs are searched: only for a trusted project (its trust decides,
   * `compose/open-project.ts`); the user's global dirs always are. Default true.
   */
  readonly project?: boolean
}

/** A custom tool file that did not load (or an export of it that is not a valid tool). */
export interface CustomToolError {
  readonly file: string
  /** Why, in one line: which import or export failed (or the syntax error, with line:column) and what to do. */
  readonly error: string
  /** The tools it keeps out: the export's, or the file's default tool (named after the file) when it did not load. */
  readonly tools: readonly string[]
}

export interface CustomToolsResult {
  /** One per file that contributed tools; closing one removes that file's tools. */
  readonly handles: Handle[]
  readonly errors: CustomToolError[]
  /**
   * The tools registered, with the file each came from and the file's name when it is an alias (a
   * `Tool.define` id names the tool); tools overridden by a closer file are left out.
   */
  readonly loaded: { readonly name: string; readonly file: string; readonly alias?: string }[]
}

/**
 * Finds the user's custom tool files and registers their tools for the project.
 *
 * 1. Directories, least specific first: the global config dirs (`~/.config/opencode` for
 *    compatibility, `~/.config/toolbelt`, `$XDG_CONFIG_HOME/...`), `$TOOLBELT_CONFIG_DIR`, then the
 *    `.opencode/` and `.toolbelt/` directories from the worktree root down to the project directory
 *    (only when `project` is not false: an untrusted project's tool files are never imported).
 * 2. In each, `{tool,tools}/*.{js,ts,mjs,mts}`: one level deep, symlinks followed, dotfiles included.
 * 3. Each file is imported (TypeScript without a build step). A file that fails to load is reported
 *    and skipped; the others still load.
 * 4. Naming: a default export made with `Tool.define(id, ...)` is named by its id (the spec's tool
 *    file `my_tool.ts` defines `my_custom_tool`), and its file's name stays callable as an alias that
 *    is not listed; otherwise as opencode: the default export is named after the file, an export `x`
 *    is `<file>_x`; exports that are not tools are ignored. A name found again in a more specific
 *    directory replaces the earlier one; in the same directory (two files defining one id) the first
 *    file keeps it, and the other is reported naming both (listed under "Not offered").
 * 5. Each file's tools are registered in the project placement (after the built-ins, so a custom tool
 *    named like a built-in overrides it) with source `custom:<file>`, with their aliases.
 */
export async function installCustomTools(options: CustomToolsOptions): Promise<CustomToolsResult> {
  const { directory, worktree, registry } = options
  const errors: CustomToolError[] = []
  const files: string[] = []
  for (const dir of customToolDirectories(options)) files.push(...(await toolFiles(dir, errors)))

  // 3. Import in parallel; read in order.
  const modules = await Promise.all(
    files.map(async (file) => {
      try {
        return { file, module: await importModule(file) }
      } catch (error) {
        return { file, error: loadFailure(error, file) }
      }
    }),
  )

  // 4. Name the tools. A name found again in a more specific directory replaces the earlier one; found
  //    again in the same directory (two files, one id), the first keeps it and the other is reported.
  const winners = new Map<string, Named>()
  const clashes: { file: string; name: string; alias: string | undefined; holder: string }[] = []
  for (const loaded of modules) {
    const { file, module } = loaded
    const base = basename(file, extname(file))
    if (!module) {
      errors.push({ file, error: loaded.error ?? "not loaded", tools: [base] })
      continue
    }
    let tools = 0
    for (const [exported, value] of Object.entries(module)) {
      // Node's namespace of a CommonJS module repeats its exports as "module.exports" (= default).
      if (exported === "module.exports") continue
      const toolbelt = isToolbeltTool(value)
      if (!toolbelt && !isToolDefinition(value)) continue
      const name = toolName(base, exported, value)
      tools++
      try {
        assertToolName(name)
        if (isInfo(value)) await probe(name, value)
        const tool = toolbelt ? value : fromPlugin(name, value, { directory, worktree })
        const alias = name === base || exported !== "default" ? undefined : base
        const held = winners.get(name)
        if (held && configDir(held.file) === configDir(file)) {
          clashes.push({ file, name, alias, holder: held.file })
          continue
        }
        winners.delete(name)
        winners.set(name, { file, tool, alias })
      } catch (error) {
        errors.push({
          file,
          error: `export ${JSON.stringify(exported)}: ${(error as Error).message}`,
          // A define id's tool is looked for by its file's name too.
          tools: exported === "default" && name !== base ? [name, base] : [name],
        })
      }
    }
    if (!tools && module.default !== undefined) {
      errors.push({ file, error: notATool(module.default), tools: [base] })
    }
  }
  // A tool that lost its name is listed under "Not offered" by its file's name, unless a tool has that
  // name (it would then read as not offered itself): by its file then.
  for (const { file, name, alias, holder } of clashes) {
    const shown = alias !== undefined && !winners.has(alias) ? alias : `custom:${label(file, worktree)}`
    errors.push({
      file,
      error: `defines the tool "${name}", which ${label(holder, worktree)} already defines (the first file in name order keeps it); give one of them another id in Tool.define`,
      tools: [shown],
    })
  }

  // 5. Register file by file; a define id's file name is an alias (callable, not listed).
  const byFile = new Map<string, { tools: Record<string, Registrable>; aliases: Record<string, string> }>()
  for (const [name, { file, tool, alias }] of winners) {
    const record = byFile.get(file) ?? { tools: {}, aliases: {} }
    record.tools[name] = tool
    if (alias !== undefined && !winners.has(alias)) record.aliases[alias] = name
    byFile.set(file, record)
  }
  const handles: Handle[] = []
  const loaded: { name: string; file: string; alias?: string }[] = []
  for (const [file, { tools, aliases }] of byFile) {
    try {
      handles.push(
        registry.register(tools, {
          placement: "project",
          source: `custom:${label(file, worktree)}`,
          aliases,
        }),
      )
      const aliasOf = new Map(Object.entries(aliases).map(([alias, name]) => [name, alias]))
      for (const name of Object.keys(tools)) {
        const alias = aliasOf.get(name)
        loaded.push({ name, file, ...(alias ? { alias } : {}) })
      }
    } catch (error) {
      errors.push({ file, error: (error as Error).message, tools: Object.keys(tools) })
    }
  }
  return { handles, errors, loaded }
}

/** A tool as named, with the file it came from and the file's name when the tool is named otherwise. */
interface Named {
  readonly file: string
  readonly tool: Registrable
  readonly alias: string | undefined
}

/**
 * A tool's name: a default export made with `Tool.define(id, ...)` is named by its id (the name the
 * spec's user calls it by); another default export (opencode's `tool()`) by its file; an export `x`
 * is `<file>_x`.
 */
function toolName(base: string, exported: string, value: unknown): string {
  if (exported !== "default") return `${base}_${exported}`
  return isInfo(value) ? value.id : base
}

/** The config directory a tool file belongs to (`<dir>` of `<dir>/tool/x.ts`): the level that wins. */
function configDir(file: string): string {
  return dirname(dirname(file))
}

/**
 * Initialises a `Tool.define` tool once, as its first listing would, so a definition that is not one
 * (no execute, parameters that are not a Zod schema, an init that throws) is reported with its file.
 */
async function probe(name: string, info: { init(ctx?: object): Promise<unknown> }): Promise<void> {
  let def: unknown
  try {
    def = await info.init({ agent: { name: "build" } })
  } catch (error) {
    // By name, not class: from the build, a tool file's `Tool.define` is the plugin module's own copy,
    // whose DefinitionError is another class than this bundle's.
    if (error instanceof DefinitionError || (error as Error)?.name === "DefinitionError") throw error
    throw new Error(`Tool.define's init threw: ${asSentence((error as Error).message.split("\n")[0]!)}`)
  }
  checkDef(name, def)
}

/** Why a file whose default export is not a tool contributes nothing. */
function notATool(value: unknown): string {
  const what =
    typeof value === "function"
      ? "a function"
      : typeof value === "object" && value !== null
        ? `an object without an execute function (keys: ${Object.keys(value).slice(0, 6).join(", ") || "none"})`
        : typeof value
  return `exports no tool: its default export is ${what}; export default tool({ description, args, execute }) (from "@opencode-ai/plugin") or Tool.define(id, init)`
}

/**
 * The tools that tool files which did not load keep out, each with the reason: what `toolbelt tools`
 * lists under "Not offered", `toolbelt call` answers, and the MCP server's instructions say.
 */
export function toolFilesNotOffered(
  errors: readonly PluginLoadError[],
  worktree: string,
): { name: string; reason: string }[] {
  return errors.flatMap((failure) =>
    failure.kind === "tool file"
      ? (failure.tools ?? []).map((name) => ({ name, reason: toolFileReason(failure, worktree) }))
      : [],
  )
}

/** Why a tool file's tools are missing, in one line: the file (relative to the worktree) and its failure. */
export function toolFileReason(failure: PluginLoadError, worktree: string): string {
  return `not loaded from the tool file ${label(failure.spec, worktree)}: ${failure.error}`
}

/** The directories searched for `{tool,tools}/`, least specific first (each once). */
export function customToolDirectories(options: {
  readonly directory: string
  readonly worktree: string
  readonly env?: NodeJS.ProcessEnv
  readonly project?: boolean
}): string[] {
  const dirs = globalDirs(options.env ?? process.env).map(({ dir }) => dir)
  if (options.project === false) return [...new Set(dirs)]
  for (const level of projectLevels(options.directory, options.worktree).reverse()) {
    for (const folder of PROJECT_FOLDERS) dirs.push(join(level, folder))
  }
  return [...new Set(dirs)]
}

/** `<dir>/{tool,tools}/*.{js,ts,mjs,mts}`, sorted; symlinks followed, dotfiles included, no `.d.ts`. */
async function toolFiles(dir: string, errors: CustomToolError[]): Promise<string[]> {
  const files: string[] = []
  for (const folder of FOLDERS) {
    const path = join(dir, folder)
    let entries: Dirent[]
    try {
      entries = readdirSync(path, { withFileTypes: true })
    } catch {
      continue // missing, or not a directory
    }
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const ext = extname(entry.name)
      if (!EXTENSIONS.has(ext) || /\.d\.m?ts$/.test(entry.name)) continue
      const file = join(path, entry.name)
      if (entry.isFile()) files.push(file)
      else if (entry.isSymbolicLink()) {
        try {
          if (statSync(file).isFile()) files.push(file)
        } catch (failure) {
          // A dangling dotfile link is an editor's lock file (`.#name.ts`), not a tool.
          if (!entry.name.startsWith(".")) {
            const error = `broken symbolic link: ${(failure as Error).message.split("\n")[0]}`
            errors.push({ file, error, tools: [basename(file, extname(file))] })
          }
        }
      }
    }
  }
  return files
}

/** How a file is named in `source`: relative to the worktree inside it, else absolute. */
function label(file: string, worktree: string): string {
  return isInside(file, worktree) ? relative(worktree, file) : file
}
