import { type Config, ConfigError } from "../../config/config.ts"
import { fromConfig, loadPermissionRules, type PolicySource } from "../config.ts"
import type { Rule, Ruleset } from "../rule.ts"
import { match } from "../wildcard.ts"
import { type Agent, createAgents, UnknownAgentError } from "./agent.ts"
import {
  type AgentDefinition,
  mergeDefinitions,
  readAgentDefinition,
  toolsPermission,
} from "./agent-definition.ts"
import { type AgentFileError, loadAgentFiles } from "./agent-files.ts"

/** Where the rules of a config passed in code (not read from files) come from. */
export const GIVEN_CONFIG = "the config given to createToolbelt"

/** A project's permission policy: every agent's rules, and what they were read from. */
export interface Policy {
  /** Config files read, files found and not used (another agent's, not opted in), the environment variable. */
  readonly sources: readonly PolicySource[]
  /** Other agents' configs applied too (`permission_sources`). */
  readonly imports: readonly string[]
  /** Every agent, built-in and custom, with its full ruleset (each rule with its source). */
  readonly agents: ReadonlyMap<string, Agent>
  /** Agent files that did not load (which one, why); the others did. */
  readonly errors: readonly AgentFileError[]
  /** An agent's ruleset by name; an unknown name throws `UnknownAgentError` listing the agents. */
  rulesOf(agent: string): Ruleset
}

export interface PolicyOptions {
  /** The project directory (its real path). */
  readonly directory: string
  /** toolbelt's data dir: its output store is pre-approved. */
  readonly dataDir: string
  /** Config given in code: its `permission` and `agent.<name>.permission` are the only rules read. */
  readonly config?: Config
  /** The repository root: agent files are looked for from it down to the project directory. */
  readonly worktree?: string
  /** Read agent files (`.toolbelt/agents/*.md`, `.opencode/agent(s)/*.md`, the user's); default true. */
  readonly agentFiles?: boolean
  readonly env?: NodeJS.ProcessEnv
  /** The skills' folders: paths in them are not asked about (`external_directory`). */
  readonly skillDirs?: readonly string[]
}

/**
 * Loads the permission policy of a project.
 * 1. The user's rules: from the config given in code, else from the config files and the environment
 *    (`loadPermissionRules`: toolbelt's own files; another agent's only when opted in).
 * 2. The agents' settings from the `agent` key, then the agent files (a broken one is reported, the
 *    rest load): a file's settings replace the config's, its rules come after them.
 * 3. Every agent's ruleset: defaults, the agent's overrides, the user's rules, the agent's own rules,
 *    the output store's pre-approval (`createAgents`).
 */
export async function loadPolicy(options: PolicyOptions): Promise<Policy> {
  const { directory, dataDir } = options
  // 1. Rules.
  const loaded = options.config
    ? {
        rules: fromConfig(options.config.permission ?? {}, { origin: GIVEN_CONFIG }),
        agents: givenAgents(options.config),
        definitions: givenDefinitions(options.config),
        sources: [],
        imports: [],
      }
    : await loadPermissionRules(directory, options.env)

  // 2. Settings and agent files.
  const definitions: Record<string, AgentDefinition> = { ...loaded.definitions }
  const ownRules: Record<string, Ruleset> = { ...loaded.agents }
  const found =
    options.agentFiles === false
      ? { files: [], errors: [] }
      : await loadAgentFiles({
          directory,
          ...(options.worktree ? { worktree: options.worktree } : {}),
          ...(options.env ? { env: options.env } : {}),
        })
  for (const file of found.files) {
    definitions[file.name] = mergeDefinitions(definitions[file.name], file.definition)
    ownRules[file.name] = [...(ownRules[file.name] ?? []), ...file.rules]
  }

  // 3. Every agent.
  const agents = createAgents({
    dataDir,
    directory,
    rules: loaded.rules,
    agents: ownRules,
    definitions,
    ...(options.skillDirs ? { skillDirs: options.skillDirs } : {}),
  })
  return {
    sources: loaded.sources,
    imports: loaded.imports,
    agents,
    errors: found.errors,
    rulesOf(name) {
      const agent = agents.get(name)
      if (!agent) throw new UnknownAgentError(name, [...agents.keys()])
      return agent.permission
    },
  }
}

/** What an agent may use outside the project without being asked. */
export interface PreApproved {
  /** The rule that allows every path outside the project, when the last such rule allows. */
  readonly everywhere: Rule | undefined
  /** The `external_directory` patterns whose last rule allows, in order, each with where it was written. */
  readonly directories: readonly Rule[]
}

/**
 * The directories outside the project an agent may use without an ask, from its ruleset: a rule whose
 * pattern is `*` (for `external_directory` or for every permission) decides all paths and replaces what
 * came before it; a later rule for a pattern replaces an earlier one for the same pattern.
 */
export function preApproved(rules: Ruleset): PreApproved {
  let everywhere: Rule | undefined
  const byPattern = new Map<string, Rule>()
  for (const rule of rules) {
    if (!match("external_directory", rule.permission)) continue
    if (rule.pattern === "*") {
      everywhere = rule.action === "allow" ? rule : undefined
      byPattern.clear()
    } else byPattern.set(rule.pattern, rule)
  }
  return { everywhere, directories: [...byPattern.values()].filter((rule) => rule.action === "allow") }
}

function givenDefinitions(config: Config): Record<string, AgentDefinition> {
  const out: Record<string, AgentDefinition> = {}
  for (const [name, value] of Object.entries(config.agent ?? {})) {
    if (typeof value !== "object" || value === null || Array.isArray(value))
      throw new ConfigError(`Invalid agent.${name}: expected an object of the agent's settings.`)
    out[name] = readAgentDefinition(value as Record<string, unknown>, `agent.${name}`)
  }
  return out
}

function givenAgents(config: Config): Record<string, Ruleset> {
  const out: Record<string, Ruleset> = {}
  for (const [name, value] of Object.entries(config.agent ?? {})) {
    const { permission, tools } = (value ?? {}) as { permission?: unknown; tools?: unknown }
    // The legacy `tools` map first: the agent's `permission` wins over it.
    const rules = [
      ...fromConfig(toolsPermission(tools, `agent.${name}`), {
        origin: GIVEN_CONFIG,
        where: `agent.${name}.tools`,
      }),
      ...fromConfig(permission ?? {}, { origin: GIVEN_CONFIG, where: `agent.${name}.permission` }),
    ]
    if (rules.length) out[name] = rules
  }
  return out
}
