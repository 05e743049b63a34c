import { access } from "node:fs/promises"
import { homedir } from "node:os"
import { join, resolve } from "node:path"
import { ConfigError, configDirs, readConfigFile } from "../config/config.ts"
import {
  type AgentDefinition,
  mergeDefinitions,
  readAgentDefinition,
  toolsPermission,
} from "./agents/agent-definition.ts"
import type { Action, Rule, RuleSource, Ruleset } from "./rule.ts"

const ACTIONS: ReadonlySet<string> = new Set(["allow", "ask", "deny"])

/** The permission config in its long form: permission key → pattern → action, in the order written. */
export type PermissionMap = Record<string, Record<string, Action>>

/**
 * Converts a `permission` config value to rules, keeping the order of its keys.
 * - `"allow"` is `{"*": "allow"}`;
 * - `{bash: "allow"}` is `[{bash, *, allow}]`;
 * - `{bash: {"*": "allow", "rm *": "deny"}}` is `[{bash, *, allow}, {bash, rm *, deny}]`.
 *
 * `~`, `~/…`, `$HOME` and `$HOME/…` at the start of a pattern become the home directory; nowhere else.
 * An invalid action throws a `ConfigError` naming its key. With `origin`, each rule carries its source:
 * `origin` and the key as written under `where` (default `permission`).
 */
export function fromConfig(
  permission: unknown,
  options: { home?: string; origin?: string; where?: string } = {},
): Rule[] {
  const home = options.home ?? homedir()
  const { origin } = options
  return written(permission, options.where ?? "permission").map((entry) => ({
    permission: entry.permission,
    pattern: expandHome(entry.pattern, home),
    action: entry.action,
    ...(origin === undefined ? {} : { source: { origin, key: entry.key } }),
  }))
}

/**
 * Validates a `permission` value and puts it in its long form, so that files merge key by key
 * (`bash: "allow"` in one file and `bash: {"rm *": "deny"}` in another keep both rules).
 */
export function normalize(permission: unknown, where = "permission", source?: string): PermissionMap {
  const out: PermissionMap = {}
  for (const entry of written(permission, where, source)) {
    out[entry.permission] ??= {}
    out[entry.permission]![entry.pattern] = entry.action
  }
  return out
}

/** One rule as written in a config value, with the key that holds it (`permission.bash["rm *"]`). */
interface Written {
  readonly permission: string
  readonly pattern: string
  readonly action: Action
  readonly key: string
}

/** The rules of a `permission` value in the order written; an invalid value throws a `ConfigError`. */
function written(permission: unknown, where: string, source?: string): Written[] {
  const at = (path: string) => (source ? `${path} in ${source}` : path)
  if (permission === undefined || permission === null) return []
  if (typeof permission === "string")
    return [{ permission: "*", pattern: "*", action: action(permission, at(where)), key: where }]
  if (!isObject(permission)) {
    throw new ConfigError(
      `Invalid ${at(where)}: expected "allow", "ask", "deny" or an object of permission keys, got ${describe(permission)}.`,
    )
  }
  const out: Written[] = []
  for (const [key, value] of Object.entries(permission)) {
    const path = `${where}.${key}`
    if (typeof value === "string") {
      out.push({ permission: key, pattern: "*", action: action(value, at(path)), key: path })
    } else if (isObject(value)) {
      for (const [pattern, act] of Object.entries(value)) {
        const inner = `${path}[${JSON.stringify(pattern)}]`
        out.push({ permission: key, pattern, action: action(act, at(inner)), key: inner })
      }
    } else {
      throw new ConfigError(
        `Invalid ${at(path)}: expected "allow", "ask", "deny" or an object mapping patterns to them, got ${describe(value)}.`,
      )
    }
  }
  return out
}

/** Expands `~` and `$HOME` at the start of a pattern only. */
export function expandHome(pattern: string, home: string): string {
  if (pattern === "~" || pattern === "$HOME") return home
  const base = home.replace(/[\\/]+$/, "")
  if (pattern.startsWith("~/")) return base + pattern.slice(1)
  if (pattern.startsWith("$HOME/")) return base + pattern.slice(5)
  return pattern
}

function action(value: unknown, where: string): Action {
  if (typeof value === "string" && ACTIONS.has(value)) return value as Action
  throw new ConfigError(`Invalid ${where}: expected "allow", "ask" or "deny", got ${describe(value)}.`)
}

function describe(value: unknown): string {
  if (value === null) return "null"
  if (Array.isArray(value)) return "a list"
  return typeof value === "string" ? JSON.stringify(value) : typeof value
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}

/** Other agents' config files whose permission rules toolbelt can be told to apply too (`permission_sources`). */
export const PERMISSION_SOURCES = ["opencode"] as const

/** A config file (or the environment) the policy was read from, or one found and left alone. */
export interface PolicySource {
  /** The file's absolute path, or `TOOLBELT_PERMISSION` for the environment variable. */
  readonly file: string
  /** `toolbelt`: toolbelt's own config; `opencode`: opencode's, applied only when opted in; `env`: the variable. */
  readonly kind: "toolbelt" | "opencode" | "env"
  readonly used: boolean
  /** Why a file that exists is not used, and how to use it. */
  readonly note?: string
}

/** The permission policy read from config files and the environment. */
export interface PermissionConfig {
  /** The merged top-level `permission` rules (user config, applies to every agent), each with its source. */
  readonly rules: Ruleset
  /** `agent.<name>.tools` and `agent.<name>.permission`, merged across files, by agent name. */
  readonly agents: Readonly<Record<string, Ruleset>>
  /** The other settings of `agent.<name>` (description, mode, model, prompt, ...): a later file's win. */
  readonly definitions: Readonly<Record<string, AgentDefinition>>
  /** The config files that were read, lowest precedence first. */
  readonly files: readonly string[]
  /** Every file looked at that exists (used or not) and the environment variable when set, in order. */
  readonly sources: readonly PolicySource[]
  /** The other agents' configs applied too (`permission_sources` in toolbelt.json). */
  readonly imports: readonly string[]
}

/**
 * Reads the permission policy for a project. toolbelt's own files are the source; another agent's
 * config is applied only when `permission_sources` in a toolbelt.json(c) names it (`["opencode"]`):
 * rules written for opencode's built-ins would otherwise hide or open toolbelt's tools when toolbelt
 * is served to opencode, which applies them to the MCP tools itself anyway.
 *
 * 1. Read every `toolbelt.json(c)`: the global config dir, `$TOOLBELT_CONFIG_DIR`, the project, the
 *    project's `.toolbelt/`. The last file that sets `permission_sources` decides it.
 * 2. Walk the same places from the lowest precedence to the highest; in each but `.toolbelt/`, an
 *    `opencode.json(c)` comes first: applied when opted in, otherwise listed as found and not used.
 * 3. `$TOOLBELT_PERMISSION`: JSON merged on top.
 * Values merge key by key (the first-seen key order kept, the last file's action and source win), then
 * become rules that say where each was written.
 */
export async function loadPermissionRules(
  directory: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<PermissionConfig> {
  const home = env.HOME || homedir()
  const project = resolve(directory)
  const dotDir = join(project, ".toolbelt")
  const dirs = configDirs(project, env)

  // 1. toolbelt's own files, and the opt-in they set.
  const own = new Map<string, Record<string, unknown>>()
  let imports: readonly string[] = []
  for (const dir of dirs) {
    for (const name of ["toolbelt.json", "toolbelt.jsonc"]) {
      const file = join(dir, name)
      const parsed = await readConfigFile(file)
      if (!parsed) continue
      own.set(file, parsed)
      if (parsed.permission_sources !== undefined)
        imports = permissionSources(parsed.permission_sources, file)
    }
  }
  const withOpencode = imports.includes("opencode")

  // 2. Every file in order of precedence.
  const permission: SourcedMap = new Map()
  const agents = new Map<string, SourcedMap>()
  const definitions: Record<string, AgentDefinition> = {}
  const sources: PolicySource[] = []
  const apply = (parsed: Record<string, unknown>, file: string) => {
    add(permission, written(parsed.permission, "permission", file), file)
    const agentConfig = parsed.agent
    if (agentConfig === undefined) return
    if (!isObject(agentConfig))
      throw new ConfigError(`Invalid agent in ${file}: expected an object of agents.`)
    for (const [name, value] of Object.entries(agentConfig)) {
      if (!isObject(value))
        throw new ConfigError(`Invalid agent.${name} in ${file}: expected an object of the agent's settings.`)
      definitions[name] = mergeDefinitions(
        definitions[name],
        readAgentDefinition(value, `agent.${name} in ${file}`),
      )
      const map = agents.get(name) ?? new Map()
      agents.set(name, map)
      // The legacy `tools` map first: the agent's `permission` wins over it.
      const tools = toolsPermission(value.tools, `agent.${name} in ${file}`)
      add(map, written(tools, `agent.${name}.tools`, file), file)
      add(map, written(value.permission, `agent.${name}.permission`, file), file)
    }
  }
  for (const dir of dirs) {
    for (const name of dir === dotDir ? [] : ["opencode.json", "opencode.jsonc"]) {
      const file = join(dir, name)
      if (!withOpencode) {
        if (await exists(file)) sources.push({ file, kind: "opencode", used: false, note: OPENCODE_NOT_USED })
        continue
      }
      const parsed = await readConfigFile(file)
      if (!parsed) continue
      sources.push({ file, kind: "opencode", used: true })
      apply(parsed, file)
    }
    for (const name of ["toolbelt.json", "toolbelt.jsonc"]) {
      const file = join(dir, name)
      const parsed = own.get(file)
      if (!parsed) continue
      sources.push({ file, kind: "toolbelt", used: true })
      apply(parsed, file)
    }
  }

  // 3. The environment, on top.
  const fromEnv = env.TOOLBELT_PERMISSION
  if (fromEnv) {
    let parsed: unknown
    try {
      parsed = JSON.parse(fromEnv)
    } catch (error) {
      throw new ConfigError(`Invalid TOOLBELT_PERMISSION: not JSON (${(error as Error).message}).`)
    }
    add(permission, written(parsed, "TOOLBELT_PERMISSION"), "TOOLBELT_PERMISSION")
    sources.push({ file: "TOOLBELT_PERMISSION", kind: "env", used: true })
  }
  const agentRules: Record<string, Ruleset> = {}
  for (const [name, map] of agents) agentRules[name] = toRules(map, home)
  return {
    rules: toRules(permission, home),
    agents: agentRules,
    definitions,
    files: sources.filter((source) => source.used && source.kind !== "env").map((source) => source.file),
    sources,
    imports,
  }
}

const OPENCODE_NOT_USED =
  'opencode\'s config: its permission rules are not applied to toolbelt\'s tools unless a toolbelt.json sets "permission_sources": ["opencode"]'

/** Rules merged across files: permission → pattern → the last action written and where. */
type SourcedMap = Map<string, Map<string, { action: Action; source: RuleSource }>>

/** Merges written rules into `map`: a key seen before keeps its place and takes the new action and source. */
function add(map: SourcedMap, entries: readonly Written[], origin: string): void {
  for (const entry of entries) {
    const patterns = map.get(entry.permission) ?? new Map()
    map.set(entry.permission, patterns)
    patterns.set(entry.pattern, { action: entry.action, source: { origin, key: entry.key } })
  }
}

function toRules(map: SourcedMap, home: string): Rule[] {
  const rules: Rule[] = []
  for (const [permission, patterns] of map) {
    for (const [pattern, { action, source }] of patterns)
      rules.push({ permission, pattern: expandHome(pattern, home), action, source })
  }
  return rules
}

function permissionSources(value: unknown, file: string): string[] {
  const known: readonly string[] = PERMISSION_SOURCES
  if (!Array.isArray(value) || value.some((item) => typeof item !== "string" || !known.includes(item))) {
    throw new ConfigError(
      `Invalid permission_sources in ${file}: expected a list of ${known.map((name) => JSON.stringify(name)).join(", ")} (other agents' configs whose permission rules toolbelt applies too), got ${JSON.stringify(value)}.`,
    )
  }
  return value as string[]
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file)
    return true
  } catch {
    return false
  }
}
