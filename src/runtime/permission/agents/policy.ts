import { type Config, ConfigError } from "../../config/config.ts"
import {
  fromConfig,
  loadPermissionRules,
  type PermissionLayer,
  type PolicySource,
  permissionFromEnv,
  trustCommand,
} from "../config.ts"
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

/** A ruleset a call is held to besides its agent's own: it can make a decision stricter, never looser. */
export interface Constraint {
  /** Whose rules, for a person: "the project's rules", "opencode's config", "the explore agent (...)". */
  readonly by: string
  readonly rules: Ruleset
}

/** A configured rule that is not applied as written, and why. */
export interface SetAside {
  readonly rule: Rule
  /** The agent it was written for; undefined for a rule for every agent. */
  readonly agent?: string
  /** `left-out`: an allow that opens nothing; `tighten-only`: a deny or ask that holds as a constraint. */
  readonly how: "left-out" | "tighten-only"
  /** Why, and what would apply it. */
  readonly why: string
}

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
  /** Whether the project's own rules are applied; they hold as constraints either way. */
  readonly trusted: boolean
  /** The agent every call is held to as well (`serve --agent X`), when there is one. */
  readonly ceiling: string | undefined
  /** The rules that are not applied as written: a project's or another agent's, left out or tighten-only. */
  readonly setAside: readonly SetAside[]
  /** An agent's ruleset by name; an unknown name throws `UnknownAgentError` listing the agents. */
  rulesOf(agent: string): Ruleset
  /** The constraints every call of `agent` is held to, each evaluated on its own (`decision.ts`). */
  heldTo(agent: string): readonly Constraint[]
  /** `heldTo`'s rulesets, the same arrays each time (what the permission engine takes). */
  constraintsOf(agent: string): readonly Ruleset[]
}

export interface PolicyOptions {
  /** The project directory (its real path). */
  readonly directory: string
  /** toolbelt's data dir: its output store is pre-approved. */
  readonly dataDir: string
  /**
   * Whether the project is trusted: its config files' and agent files' rules are applied (below the
   * user's). Untrusted, they only tighten.
   */
  readonly trusted: boolean
  /** Config given in code, the caller's own: the user layer, instead of the config files. */
  readonly config?: Config
  /** An agent every call is held to as well, whatever agent it runs as (`serve --agent X`). */
  readonly ceiling?: string
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
 * 1. The layers: the config given in code as the user's, else the config files and the environment
 *    (`loadPermissionRules`: the user's files apart from the project's; another agent's applied only
 *    when opted in, otherwise a constraint).
 * 2. The agent files (a broken one is reported, the rest load), each in its layer: a file's settings
 *    replace the config's, its rules come after the layer's `agent.<name>` rules.
 * 3. Every agent's ruleset (`createAgents`): defaults, the agent's overrides, the project's layer when
 *    trusted, the user's, `TOOLBELT_PERMISSION`, the output store's pre-approval.
 * 4. The constraints: the project's rules (trusted or not: they may always tighten), another agent's
 *    config not opted in, and the ceiling agent's whole policy.
 */
export async function loadPolicy(options: PolicyOptions): Promise<Policy> {
  const { directory, dataDir, trusted } = options
  const env = options.env ?? process.env
  // 1. Layers.
  const loaded = options.config
    ? {
        user: {
          rules: fromConfig(options.config.permission ?? {}, { origin: GIVEN_CONFIG }),
          agents: givenAgents(options.config),
        },
        project: { rules: [], agents: {} },
        env: permissionFromEnv(env),
        others: [],
        definitions: givenDefinitions(options.config),
        sources: env.TOOLBELT_PERMISSION
          ? [{ file: "TOOLBELT_PERMISSION", kind: "env", layer: "user", use: "applied" } as const]
          : [],
        imports: [],
      }
    : await loadPermissionRules(directory, env, { trusted })

  // 2. Settings and agent files.
  const definitions: Record<string, AgentDefinition> = { ...loaded.definitions }
  const user = { rules: loaded.user.rules, agents: { ...loaded.user.agents } }
  const project = { rules: loaded.project.rules, agents: { ...loaded.project.agents } }
  const found =
    options.agentFiles === false
      ? { files: [], errors: [] }
      : await loadAgentFiles({
          directory,
          ...(options.worktree ? { worktree: options.worktree } : {}),
          env,
        })
  for (const file of found.files) {
    definitions[file.name] = mergeDefinitions(definitions[file.name], file.definition)
    const layer = file.layer === "user" ? user : project
    layer.agents[file.name] = [...(layer.agents[file.name] ?? []), ...file.rules]
  }

  // 3. Every agent.
  const layers: PermissionLayer[] = [...(trusted ? [project] : []), user, { rules: loaded.env, agents: {} }]
  const agents = createAgents({
    dataDir,
    directory,
    layers,
    definitions,
    ...(options.skillDirs ? { skillDirs: options.skillDirs } : {}),
  })
  const rulesOf = (name: string): Ruleset => {
    const agent = agents.get(name)
    if (!agent) throw new UnknownAgentError(name, [...agents.keys()])
    return agent.permission
  }

  // 4. Constraints.
  const projectBy = trusted
    ? "the project's rules (trusted: they also tighten the user's)"
    : `the project's rules (not trusted: they only tighten; ${trustCommand(directory)})`
  const written = (layer: PermissionLayer, name: string): Ruleset => [
    ...layer.rules,
    ...(layer.agents[name] ?? []),
  ]
  const ownConstraints = (name: string): Constraint[] =>
    [
      { by: projectBy, rules: written(project, name) },
      ...loaded.others.map((other) => ({
        by: `another agent's config (${origins(other)}): its allows are not applied`,
        rules: written(other, name),
      })),
    ].filter((constraint) => constraint.rules.length > 0)
  if (options.ceiling !== undefined) rulesOf(options.ceiling)
  const held = new Map<string, { constraints: Constraint[]; rulesets: Ruleset[] }>()
  const heldTo = (name: string) => {
    let found = held.get(name)
    if (!found) {
      const constraints = ownConstraints(name)
      const ceiling = options.ceiling
      if (ceiling !== undefined && ceiling !== name)
        constraints.push(
          { by: `the ${ceiling} agent (this server runs no call beyond it)`, rules: rulesOf(ceiling) },
          ...ownConstraints(ceiling),
        )
      found = { constraints, rulesets: constraints.map((constraint) => constraint.rules) }
      held.set(name, found)
    }
    return found
  }

  return {
    sources: loaded.sources,
    imports: loaded.imports,
    agents,
    errors: found.errors,
    trusted,
    ceiling: options.ceiling,
    setAside: setAside({ project, others: loaded.others, trusted, directory }),
    rulesOf,
    heldTo: (name) => heldTo(name).constraints,
    constraintsOf: (name) => heldTo(name).rulesets,
  }
}

/**
 * The configured rules not applied as written: an untrusted project's (its allows left out, its denies
 * and asks tighten only), and another agent's config not opted in (the same).
 */
function setAside(input: {
  project: PermissionLayer
  others: readonly PermissionLayer[]
  trusted: boolean
  directory: string
}): SetAside[] {
  const out: SetAside[] = []
  const each = (layer: PermissionLayer, why: { left: string; tighten: string }) => {
    const push = (rule: Rule, agent?: string) =>
      out.push({
        rule,
        ...(agent === undefined ? {} : { agent }),
        how: rule.action === "allow" ? "left-out" : "tighten-only",
        why: rule.action === "allow" ? why.left : why.tighten,
      })
    for (const rule of layer.rules) push(rule)
    for (const [agent, rules] of Object.entries(layer.agents)) for (const rule of rules) push(rule, agent)
  }
  if (!input.trusted)
    each(input.project, {
      left: `the project is not trusted (${trustCommand(input.directory)})`,
      tighten: "the project is not trusted: it may make decisions stricter, never looser",
    })
  for (const other of input.others)
    each(other, {
      left: 'another agent\'s config: its allows apply only when a toolbelt.json of yours sets "permission_sources"',
      tighten: "another agent's config: its denies and asks hold for toolbelt's tools too",
    })
  return out
}

/** The files a layer's rules were written in, each once (a layer of opencode's may have several). */
function origins(layer: PermissionLayer): string {
  const rules = [...layer.rules, ...Object.values(layer.agents).flat()]
  const files = [...new Set(rules.map((rule) => rule.source?.origin).filter((file) => file !== undefined))]
  return files.join(", ") || "opencode.json"
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
