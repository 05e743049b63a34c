import { homedir } from "node:os"
import { join, resolve } from "node:path"
import { ConfigError, configDirs, deepMerge, readConfigFile } from "../config/config.ts"
import type { Action, Rule, Ruleset } from "./rule.ts"

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
 * An invalid action throws a `ConfigError` naming its key.
 */
export function fromConfig(permission: unknown, options: { home?: string } = {}): Rule[] {
  const home = options.home ?? homedir()
  const rules: Rule[] = []
  for (const [key, patterns] of Object.entries(normalize(permission))) {
    for (const [pattern, action] of Object.entries(patterns)) {
      rules.push({ permission: key, pattern: expandHome(pattern, home), action })
    }
  }
  return rules
}

/**
 * Validates a `permission` value and puts it in its long form, so that files merge key by key
 * (`bash: "allow"` in one file and `bash: {"rm *": "deny"}` in another keep both rules).
 */
export function normalize(permission: unknown, where = "permission", source?: string): PermissionMap {
  const at = (path: string) => (source ? `${path} in ${source}` : path)
  if (permission === undefined || permission === null) return {}
  if (typeof permission === "string") return { "*": { "*": action(permission, at(where)) } }
  if (!isObject(permission)) {
    throw new ConfigError(
      `Invalid ${at(where)}: expected "allow", "ask", "deny" or an object of permission keys, got ${describe(permission)}.`,
    )
  }
  const out: PermissionMap = {}
  for (const [key, value] of Object.entries(permission)) {
    if (typeof value === "string") out[key] = { "*": action(value, at(`${where}.${key}`)) }
    else if (isObject(value)) {
      const patterns: Record<string, Action> = {}
      for (const [pattern, act] of Object.entries(value)) {
        patterns[pattern] = action(act, at(`${where}.${key}[${JSON.stringify(pattern)}]`))
      }
      out[key] = patterns
    } else {
      throw new ConfigError(
        `Invalid ${at(`${where}.${key}`)}: expected "allow", "ask", "deny" or an object mapping patterns to them, got ${describe(value)}.`,
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

/** The permission policy read from config files and the environment. */
export interface PermissionConfig {
  /** The merged top-level `permission` rules (user config, applies to every agent). */
  readonly rules: Ruleset
  /** `agent.<name>.permission`, merged across files, by agent name. */
  readonly agents: Readonly<Record<string, Ruleset>>
  /** The config files that were read, lowest precedence first. */
  readonly files: readonly string[]
}

/**
 * Reads the permission policy for a project. Sources, from the lowest precedence to the highest:
 * 1. the global config dir: `opencode.json(c)`, then `toolbelt.json(c)`;
 * 2. `$TOOLBELT_CONFIG_DIR`: the same files;
 * 3. the project: `opencode.json(c)` (the `permission` key, for compatibility), then `toolbelt.json(c)`;
 * 4. the project's `.toolbelt/toolbelt.json(c)`;
 * 5. `$TOOLBELT_PERMISSION`: JSON merged on top.
 * Values merge key by key (deep merge, the first-seen key order kept), then become rules.
 */
export async function loadPermissionRules(
  directory: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<PermissionConfig> {
  const home = env.HOME || homedir()
  const project = resolve(directory)
  const dotDir = join(project, ".toolbelt")
  let permission: PermissionMap = {}
  const agents: Record<string, PermissionMap> = {}
  const files: string[] = []
  for (const dir of configDirs(project, env)) {
    const names = dir === dotDir ? [] : ["opencode.json", "opencode.jsonc"]
    names.push("toolbelt.json", "toolbelt.jsonc")
    for (const name of names) {
      const file = join(dir, name)
      const parsed = await readConfigFile(file)
      if (!parsed) continue
      files.push(file)
      permission = deepMerge(permission, normalize(parsed.permission, "permission", file)) as PermissionMap
      const agentConfig = parsed.agent
      if (agentConfig === undefined) continue
      if (!isObject(agentConfig))
        throw new ConfigError(`Invalid agent in ${file}: expected an object of agents.`)
      for (const [name, value] of Object.entries(agentConfig)) {
        if (!isObject(value)) continue
        const own = normalize(value.permission, `agent.${name}.permission`, file)
        agents[name] = deepMerge(agents[name] ?? {}, own) as PermissionMap
      }
    }
  }
  const fromEnv = env.TOOLBELT_PERMISSION
  if (fromEnv) {
    let parsed: unknown
    try {
      parsed = JSON.parse(fromEnv)
    } catch (error) {
      throw new ConfigError(`Invalid TOOLBELT_PERMISSION: not JSON (${(error as Error).message}).`)
    }
    permission = deepMerge(permission, normalize(parsed, "TOOLBELT_PERMISSION")) as PermissionMap
  }
  const agentRules: Record<string, Ruleset> = {}
  for (const [name, value] of Object.entries(agents)) agentRules[name] = fromConfig(value, { home })
  return { rules: fromConfig(permission, { home }), agents: agentRules, files }
}
