import { readFileSync } from "node:fs"
import { homedir } from "node:os"
import { dirname, isAbsolute, join, resolve } from "node:path"
import { asSentence } from "../../platform/text/sentence.ts"
import { ConfigError } from "./config-error.ts"
import { withAliases } from "./keys.ts"
import { parseConfigText } from "./parse-file.ts"
import { homeDir } from "./search-dirs.ts"

export { ConfigError } from "./config-error.ts"

/** Tool search's settings, as config gives them (defaults filled in). */
export interface ToolSearchSettings {
  readonly mode: "auto" | "on" | "off"
  readonly budget: number
  readonly rerank: boolean
}

/**
 * Reads and checks `tool_search`, `tool_search_budget` and `tool_search_rerank`; a wrong value is a
 * `ConfigError` naming the key and what it takes. The default budget, 20,000 tokens, is 10% of a 200k
 * window and ~15% of the 128k windows most other agent models have (the built-ins take ~8.7k of it).
 */
export function toolSearchSettings(config: Config): ToolSearchSettings {
  const mode = config.tool_search ?? "auto"
  if (mode !== "auto" && mode !== "on" && mode !== "off")
    throw new ConfigError(
      `Invalid config: "tool_search" is ${JSON.stringify(mode)}; it takes "auto" (the default), "on" or "off".`,
    )
  const budget = config.tool_search_budget ?? 20_000
  if (typeof budget !== "number" || !Number.isInteger(budget) || budget <= 0)
    throw new ConfigError(
      `Invalid config: "tool_search_budget" is ${JSON.stringify(budget)}; it takes a positive whole number of tokens (default 20000).`,
    )
  const rerank = config.tool_search_rerank ?? false
  if (typeof rerank !== "boolean")
    throw new ConfigError(
      `Invalid config: "tool_search_rerank" is ${JSON.stringify(rerank)}; it takes true or false (default false).`,
    )
  return { mode, budget, rerank }
}

/**
 * toolbelt's configuration, as read from `toolbelt.json(c)` files. Unknown keys are kept (a plugin may
 * read its own), and reported once by `keys.ts`'s `unknownKeys`.
 */
export interface Config {
  readonly tool_output?: { readonly max_lines?: number; readonly max_bytes?: number }
  readonly permission?: unknown
  /**
   * Other agents' configs whose allows toolbelt applies too: `["opencode"]` applies the `permission` and
   * `agent.<name>.permission` of `opencode.json(c)` and `.opencode/config.toml` (`other-agents.ts`).
   * Default: none; their denies and asks hold either way.
   */
  readonly permission_sources?: readonly string[]
  readonly agent?: Readonly<Record<string, unknown>>
  /** Plugin modules, resolved to absolute paths (relative entries are relative to their file). */
  readonly plugin?: readonly string[]
  /** Defer tools from MCP servers, plugins and tool files: `auto` (default, past the budget), `on`, `off`. */
  readonly tool_search?: "auto" | "on" | "off"
  /** Tokens (o200k_base) of definitions offered up front before `auto` defers (default 20000). */
  readonly tool_search_budget?: number
  /** Rerank tool_search's top candidates with the session's model, when one is available (default false). */
  readonly tool_search_rerank?: boolean
  /**
   * Where the records go: a PostgreSQL URL (`postgres://user:password@host:port/database`, TLS by
   * `sslmode`), one database any number of toolbelts share. Default: the SQLite file in the data dir.
   * `--store` and `TOOLBELT_STORE` come first; the user's config wins over a project's, and an
   * untrusted project's is left out (it would send every session's record to a database it chose).
   */
  readonly store?: string
  /** Offer the `batch` tool (default false). `experimental.batch_tool`, opencode's name, does the same. */
  readonly batch?: boolean
  /** opencode's flags: `batch_tool` (the same as `batch`) is the one toolbelt reads. */
  readonly experimental?: { readonly batch_tool?: boolean }
  readonly [key: string]: unknown
}

/** The global config directory: `$XDG_CONFIG_HOME/toolbelt`, else `~/.config/toolbelt`. */
export function globalConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CONFIG_HOME || join(homeDir(env), ".config"), "toolbelt")
}

/** Directories searched for `toolbelt.json(c)`, from the lowest precedence to the highest. */
export function configDirs(directory: string, env: NodeJS.ProcessEnv = process.env): string[] {
  return [...userConfigDirs(env), ...projectConfigDirs(directory)]
}

/** The user's config dirs: the global one, then `$TOOLBELT_CONFIG_DIR`. */
export function userConfigDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  const dirs = [globalConfigDir(env)]
  if (env.TOOLBELT_CONFIG_DIR) dirs.push(resolve(env.TOOLBELT_CONFIG_DIR))
  return dirs
}

/** The project's config dirs: the project directory, then its `.toolbelt/`. */
export function projectConfigDirs(directory: string): string[] {
  return [directory, join(directory, ".toolbelt")]
}

/** One config file read: where, and what it holds (as written). */
export interface ConfigFile {
  readonly file: string
  readonly value: Readonly<Record<string, unknown>>
}

/**
 * The two layers of config, apart: the user's (global dir, `$TOOLBELT_CONFIG_DIR`) and the project's
 * (its directory and `.toolbelt/`), each merged within itself, and every file read with its value.
 * Which project keys apply depends on whether the project is trusted (`trust/project-trust.ts`).
 */
export interface ConfigLayers {
  readonly user: Config
  readonly project: Config
  readonly userFiles: readonly ConfigFile[]
  readonly projectFiles: readonly ConfigFile[]
}

/** Reads the user layer and the project layer separately. */
export async function loadConfigLayers(
  directory: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ConfigLayers> {
  const userFiles = await readConfigFiles(userConfigDirs(env))
  const projectFiles = await readConfigFiles(projectConfigDirs(directory))
  return { user: mergeFiles(userFiles), project: mergeFiles(projectFiles), userFiles, projectFiles }
}

/** The project layer over the user layer, key by key; plugin lists are joined (each module once). */
export function combineLayers(user: Config, project: Config): Config {
  return mergeConfig(withAliases(user), project, "")
}

/**
 * Reads and merges every config file that exists, the project's over the user's: the config of a
 * trusted project. A caller that may face an untrusted one uses `loadConfigLayers`.
 */
export async function loadConfig(
  directory: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ config: Config; files: string[] }> {
  const layers = await loadConfigLayers(directory, env)
  return {
    config: combineLayers(layers.user, layers.project),
    files: [...layers.userFiles, ...layers.projectFiles].map(({ file }) => file),
  }
}

async function readConfigFiles(dirs: readonly string[]): Promise<ConfigFile[]> {
  const files: ConfigFile[] = []
  for (const dir of dirs) {
    for (const name of ["toolbelt.json", "toolbelt.jsonc"]) {
      const file = join(dir, name)
      const value = await readConfigFile(file)
      if (value) files.push({ file, value })
    }
  }
  return files
}

function mergeFiles(files: readonly ConfigFile[]): Config {
  let merged: Record<string, unknown> = {}
  for (const { file, value } of files) merged = mergeConfig(merged, value, dirname(file))
  return merged as Config
}

/** Parses one config file (JSON with comments, or TOML for `.toml`); undefined when it does not exist. */
export async function readConfigFile(file: string): Promise<Record<string, unknown> | undefined> {
  let text: string
  try {
    text = readFileSync(file, "utf8")
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined
    throw new ConfigError(
      `Cannot read config file ${file}: ${asSentence((error as Error).message)} Fix its permissions, or remove it.`,
    )
  }
  return parseConfigText(text, file)
}

function mergeConfig(
  base: Record<string, unknown>,
  next: Record<string, unknown>,
  fileDir: string,
): Record<string, unknown> {
  // Aliases resolve file by file, so a later file's `batch` wins over an earlier one's alias and back.
  const out = deepMerge(base, { ...withAliases(next), plugin: undefined })
  delete out.plugin
  const plugins = [
    ...((base.plugin as string[] | undefined) ?? []),
    ...asStrings(next.plugin).map((spec) => resolvePluginSpec(spec, fileDir)),
  ]
  if (plugins.length) out.plugin = [...new Set(plugins)]
  return out
}

function asStrings(value: unknown): string[] {
  if (value === undefined) return []
  if (!Array.isArray(value) || value.some((item) => typeof item !== "string")) {
    throw new ConfigError(`Invalid config: "plugin" must be a list of module paths or package names.`)
  }
  return value
}

function resolvePluginSpec(spec: string, fileDir: string): string {
  if (spec.startsWith(".") || isAbsolute(spec)) return resolve(fileDir, spec)
  if (spec.startsWith("~/")) return join(homedir(), spec.slice(2))
  return spec
}

/** Objects merge key by key (keeping first-seen key order); anything else is replaced. */
export function deepMerge(
  base: Record<string, unknown>,
  next: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base }
  for (const [key, value] of Object.entries(next)) {
    const current = out[key]
    out[key] = isPlainObject(current) && isPlainObject(value) ? deepMerge(current, value) : value
  }
  return out
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}
