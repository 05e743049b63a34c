import { homedir } from "node:os"
import { join, resolve } from "node:path"
import { logger } from "../../platform/util/log.ts"
import { ConfigError, configDirs, readConfigFile } from "../config/config.ts"
import { permissionFiles, unreadKeys } from "../config/other-agents.ts"
import {
  type AgentDefinition,
  mergeDefinitions,
  readAgentDefinition,
  toolsPermission,
} from "./agents/agent-definition.ts"
import type { Action, Rule, RuleSource, Ruleset } from "./rule.ts"

const log = logger("config")

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

/** Whose rules: the user's (global config dirs, `$TOOLBELT_CONFIG_DIR`, the environment) or the project's. */
export type Layer = "user" | "project"

/** A config file (or the environment) the policy was read from, or one found and left alone. */
export interface PolicySource {
  /** The file's absolute path, or `TOOLBELT_PERMISSION` for the environment variable. */
  readonly file: string
  /** `toolbelt`: toolbelt's own config; `opencode`: another agent's; `env`: the variable. */
  readonly kind: "toolbelt" | "opencode" | "env"
  readonly layer: Layer
  /**
   * How its rules count: `applied` (in every agent's rules, at its layer's place), `tighten-only` (a
   * constraint only: its denies and asks hold, its allows open nothing), `unused` (not read).
   */
  readonly use: "applied" | "tighten-only" | "unused"
  /** Why a file's rules are not applied as written, and what would apply them. */
  readonly note?: string
  /** Another agent's keys toolbelt does not read (its model, theme, ...): not errors, just not used. */
  readonly unread?: readonly string[]
}

/** The rules of one layer's files, merged key by key across them. */
export interface PermissionLayer {
  /** The top-level `permission` rules (for every agent), each with its source. */
  readonly rules: Ruleset
  /** `agent.<name>.tools` and `agent.<name>.permission`, by agent name. */
  readonly agents: Readonly<Record<string, Ruleset>>
}

/** The permission policy read from config files and the environment, layer by layer. */
export interface PermissionConfig {
  /** The user's files (and another agent's user-level config when opted in). */
  readonly user: PermissionLayer
  /**
   * The project's files (and another agent's project-level config when opted in). Applied only when the
   * project is trusted; a constraint on every agent either way.
   */
  readonly project: PermissionLayer
  /** `TOOLBELT_PERMISSION`: above every file, for every agent. */
  readonly env: Ruleset
  /** Another agent's configs not opted in, one per layer that has one: constraints only. */
  readonly others: readonly PermissionLayer[]
  /** The other settings of `agent.<name>` (description, mode, model, prompt, ...): a later file's win. */
  readonly definitions: Readonly<Record<string, AgentDefinition>>
  /** The config files whose rules are applied, lowest precedence first. */
  readonly files: readonly string[]
  /** Every file looked at that exists (applied, tighten-only or unused) and the variable when set, in order. */
  readonly sources: readonly PolicySource[]
  /** The other agents' configs applied too (`permission_sources`, as the user or a trusted project set it). */
  readonly imports: readonly string[]
}

/** Which layer a config dir belongs to: the project directory and its `.toolbelt/` are the project's. */
export function layerOf(dir: string, directory: string): Layer {
  const project = resolve(directory)
  return dir === project || dir === join(project, ".toolbelt") ? "project" : "user"
}

/**
 * Reads the permission policy for a project, the user's files apart from the project's. toolbelt's own
 * files are the source; another agent's config (opencode's) is applied only when `permission_sources`
 * names it, and otherwise held as a constraint: its denies and asks still hold (they were written to
 * keep an agent from something), its allows open nothing for toolbelt's tools.
 *
 * 1. Read every `toolbelt.json(c)`: the global config dir, `$TOOLBELT_CONFIG_DIR`, the project, the
 *    project's `.toolbelt/`. The last file that sets `permission_sources` decides it; a project's
 *    setting counts only when the project is trusted (it would otherwise let the project loosen).
 * 2. Walk every file from the lowest precedence to the highest (`permissionFiles`): the user's opencode
 *    config first, then the same places as in 1, each but `.toolbelt/` with opencode's files before
 *    toolbelt's (the project's `.opencode/config.toml` after its `opencode.json(c)`). opencode's go into
 *    their layer when opted in, otherwise they are a constraint of their own (one per layer); one that
 *    does not parse is listed as not used, and said on stderr (its denies would otherwise vanish).
 * 3. `$TOOLBELT_PERMISSION`: the top.
 * Within a layer, values merge key by key (the first-seen key order kept, the last file's action and
 * source win), then become rules that say where each was written.
 */
export async function loadPermissionRules(
  directory: string,
  env: NodeJS.ProcessEnv,
  options: { readonly trusted: boolean },
): Promise<PermissionConfig> {
  const home = env.HOME || homedir()
  const project = resolve(directory)
  const dirs = configDirs(project, env)
  const untrustedNote = `the project is not trusted: its denies and asks hold, its allows and its permission_sources are left out (${trustCommand(project)})`

  // 1. toolbelt's own files, and the opt-in they set.
  const own = new Map<string, Record<string, unknown>>()
  let imports: readonly string[] = []
  for (const dir of dirs) {
    for (const name of ["toolbelt.json", "toolbelt.jsonc"]) {
      const file = join(dir, name)
      const parsed = await readConfigFile(file)
      if (!parsed) continue
      own.set(file, parsed)
      if (parsed.permission_sources === undefined) continue
      const named = permissionSources(parsed.permission_sources, file)
      if (options.trusted || layerOf(dir, project) === "user") imports = named
    }
  }
  const withOpencode = imports.includes("opencode")

  // 2. Every file in order of precedence, into its layer.
  const layers = { user: new Merged(), project: new Merged() }
  const others = new Map<Layer, Merged>()
  const definitions: Record<string, AgentDefinition> = {}
  const sources: PolicySource[] = []
  for (const { file, kind, layer } of permissionFiles(project, dirs, env)) {
    const applied = layer === "user" || options.trusted
    const use = applied ? "applied" : "tighten-only"
    const untrusted = applied ? {} : { note: untrustedNote }
    if (kind === "toolbelt") {
      const parsed = own.get(file)
      if (!parsed) continue
      sources.push({ file, kind, layer, use, ...untrusted })
      layers[layer].add(parsed, file, definitions)
      continue
    }
    if (withOpencode) {
      const parsed = await readConfigFile(file)
      if (!parsed) continue
      sources.push({ file, kind, layer, use, ...untrusted, ...unread(parsed) })
      layers[layer].add(parsed, file, definitions)
      continue
    }
    let parsed: Record<string, unknown> | undefined
    try {
      parsed = await readConfigFile(file)
    } catch (error) {
      // Another agent's file it cannot read: toolbelt's own policy still stands, and the person is told.
      const note = `${(error as Error).message} Until then its rules are not applied, its denies and asks included.`
      sources.push({ file, kind, layer, use: "unused", note })
      warnOnce(file, note)
      continue
    }
    if (!parsed) continue
    sources.push({ file, kind, layer, use: "tighten-only", note: OPENCODE_TIGHTEN_ONLY, ...unread(parsed) })
    const merged = others.get(layer) ?? new Merged()
    others.set(layer, merged)
    merged.add(parsed, file, undefined)
  }

  // 3. The environment, on top.
  const envRules = permissionFromEnv(env, home)
  if (envRules.length)
    sources.push({ file: "TOOLBELT_PERMISSION", kind: "env", layer: "user", use: "applied" })
  return {
    user: layers.user.layer(home),
    project: layers.project.layer(home),
    env: envRules,
    others: [...others.values()].map((merged) => merged.layer(home)),
    definitions,
    files: sources
      .filter((source) => source.use === "applied" && source.kind !== "env")
      .map((source) => source.file),
    sources,
    imports,
  }
}

/** The keys of another agent's file toolbelt does not read, when it has any. */
function unread(value: Record<string, unknown>): { unread?: readonly string[] } {
  const keys = unreadKeys(value)
  return keys.length ? { unread: keys } : {}
}

/** Files already warned about in this process: a server that builds many toolbelts says it once. */
const warned = new Set<string>()

function warnOnce(file: string, message: string): void {
  if (warned.has(file)) return
  warned.add(file)
  log.warn(message)
}

/** `$TOOLBELT_PERMISSION`'s rules; none when unset. */
export function permissionFromEnv(env: NodeJS.ProcessEnv, home: string = env.HOME || homedir()): Rule[] {
  const fromEnv = env.TOOLBELT_PERMISSION
  if (!fromEnv) return []
  let parsed: unknown
  try {
    parsed = JSON.parse(fromEnv)
  } catch (error) {
    throw new ConfigError(
      `Invalid TOOLBELT_PERMISSION: not JSON (${(error as Error).message}). Set it to a JSON object of rules, such as {"bash": "ask"}.`,
    )
  }
  return fromConfig(parsed, { home, origin: "TOOLBELT_PERMISSION", where: "TOOLBELT_PERMISSION" })
}

/** What trusts a project, for notes that say how to apply its rules. */
export function trustCommand(directory: string): string {
  return `toolbelt trust ${directory}`
}

const OPENCODE_TIGHTEN_ONLY =
  'opencode\'s config: its denies and asks hold for toolbelt\'s tools too; its allows apply only when a toolbelt.json of yours sets "permission_sources": ["opencode"]'

/** Rules merged across files: permission → pattern → the last action written and where. */
type SourcedMap = Map<string, Map<string, { action: Action; source: RuleSource }>>

/** The rules of several files, merged key by key: a key seen before keeps its place, takes the new action. */
class Merged {
  readonly #permission: SourcedMap = new Map()
  readonly #agents = new Map<string, SourcedMap>()

  /** Adds a file's `permission` and `agent` keys; its agent settings go to `definitions` when given. */
  add(
    parsed: Record<string, unknown>,
    file: string,
    definitions: Record<string, AgentDefinition> | undefined,
  ) {
    add(this.#permission, written(parsed.permission, "permission", file), file)
    const agentConfig = parsed.agent
    if (agentConfig === undefined) return
    if (!isObject(agentConfig))
      throw new ConfigError(`Invalid agent in ${file}: expected an object of agents.`)
    for (const [name, value] of Object.entries(agentConfig)) {
      if (!isObject(value))
        throw new ConfigError(`Invalid agent.${name} in ${file}: expected an object of the agent's settings.`)
      if (definitions)
        definitions[name] = mergeDefinitions(
          definitions[name],
          readAgentDefinition(value, `agent.${name} in ${file}`),
        )
      const map = this.#agents.get(name) ?? new Map()
      this.#agents.set(name, map)
      // The legacy `tools` map first: the agent's `permission` wins over it.
      const tools = toolsPermission(value.tools, `agent.${name} in ${file}`)
      add(map, written(tools, `agent.${name}.tools`, file), file)
      add(map, written(value.permission, `agent.${name}.permission`, file), file)
    }
  }

  layer(home: string): PermissionLayer {
    const agents: Record<string, Ruleset> = {}
    for (const [name, map] of this.#agents) agents[name] = toRules(map, home)
    return { rules: toRules(this.#permission, home), agents }
  }
}

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
