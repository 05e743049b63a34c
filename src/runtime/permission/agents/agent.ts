import { realpathSync } from "node:fs"
import { join, relative, sep } from "node:path"
import { fromConfig, type PermissionLayer } from "../config.ts"
import type { Rule, Ruleset } from "../rule.ts"
import type { AgentDefinition, AgentMode } from "./agent-definition.ts"

/** Who runs: the permission policy of a session, by agent name, and how it runs. */
export interface Agent {
  readonly name: string
  /** `primary` agents talk to the person; `subagent`s run under the task tool; `all` can do both. */
  readonly mode: AgentMode
  readonly description: string
  /** Whether the description was written (by toolbelt or the user) rather than made up from the name. */
  readonly described: boolean
  /**
   * Defaults, then the agent's overrides, then each configured layer (a trusted project's, the user's,
   * `TOOLBELT_PERMISSION`): its rules for every agent, then its rules for this one.
   */
  readonly permission: Ruleset
  /** Its system prompt, when it has its own. */
  readonly prompt?: string
  /** `provider/model-id` when it runs on a model of its own. */
  readonly model?: string
  /** The most model calls of one of its turns, when it sets one. */
  readonly steps?: number
  /** Left out of the `task` tool's list of subagents. */
  readonly hidden?: boolean
}

export interface AgentOptions {
  /** toolbelt's data dir: its `tool-output/` (and `plans/`) are pre-approved outside the project. */
  readonly dataDir: string
  /**
   * A temp dir to pre-approve outside the project. None by default: the system temp dir is shared with
   * every other program and user, so a path there asks like any other path outside the project (a
   * cloned repository's symlink into /tmp must not be a way out). Allow it in config to pre-approve it.
   */
  readonly tmpDir?: string
  /**
   * Folders pre-approved outside the project, as opencode does for skills: a skill's instructions send
   * the model to read and run the files beside them.
   */
  readonly skillDirs?: readonly string[]
  /** The project directory: the plan agent may edit plans in the data dir through a relative path. */
  readonly directory?: string
  /** Used to expand `~` in the built-in patterns (default: the user's home). */
  readonly home?: string
  /**
   * The configured layers, lowest precedence first: each one's `permission` for every agent, then its
   * rules for an agent by name (`agent.<name>.tools` and `.permission`, then its agent files'). Names
   * that are not built in define custom agents.
   */
  readonly layers?: readonly PermissionLayer[]
  /** Each agent's settings (description, mode, model, prompt, ...) from config and agent files. */
  readonly definitions?: Readonly<Record<string, AgentDefinition>>
}

/** A name the agent table does not know. */
export class UnknownAgentError extends Error {
  override readonly name = "UnknownAgentError"
  readonly agent: string
  readonly available: readonly string[]
  constructor(agent: string, available: readonly string[]) {
    super(`Unknown agent "${agent}". Available agents: ${available.join(", ")}.`)
    this.agent = agent
    this.available = available
  }
}

export const BUILTIN_AGENTS = ["build", "plan", "general", "explore"] as const

/** The source of the base defaults' rules. */
export const DEFAULTS_ORIGIN = "toolbelt's defaults"

/** The source of the rule that pre-approves toolbelt's output store (where truncated outputs are read back). */
export const OUTPUT_STORE_ORIGIN = "toolbelt's defaults (its output store, always readable)"

/** The default agent of every surface. */
export const DEFAULT_AGENT = "build"

/**
 * The base defaults put in front of every agent's rules: everything allowed, except `doom_loop` and paths
 * outside the project (ask; toolbelt's own output store is allowed), `.env` reads (ask;
 * `.env.example` allowed), and the mode-switching and question tools (denied, until an agent allows them).
 */
export function baseRules(options: AgentOptions): Rule[] {
  const external: Record<string, string> = { "*": "ask" }
  for (const pattern of whitelist(options)) external[pattern] = "allow"
  return fromConfig(
    {
      "*": "allow",
      doom_loop: "ask",
      // A changed MCP tool definition asks again, whatever "*" allows.
      mcp_drift: "ask",
      external_directory: external,
      question: "deny",
      plan_enter: "deny",
      plan_exit: "deny",
      read: { "*": "allow", "*.env": "ask", "*.env.*": "ask", "*.env.example": "allow" },
    },
    { ...homeOption(options), origin: DEFAULTS_ORIGIN },
  )
}

/** Each built-in agent's own overrides, after the base defaults. */
function overrides(name: string, options: AgentOptions): Record<string, unknown> | undefined {
  switch (name) {
    case "build":
      return { question: "allow", plan_enter: "allow" }
    case "plan": {
      const plans = join(options.dataDir, "plans")
      const edit: Record<string, string> = { "*": "deny", ".toolbelt/plans/*.md": "allow" }
      if (options.directory) edit[`${toSlash(relative(options.directory, plans))}/*.md`] = "allow"
      return {
        question: "allow",
        plan_exit: "allow",
        task: { general: "deny" },
        external_directory: { [join(plans, "*")]: "allow" },
        edit,
      }
    }
    case "general":
      return { todowrite: "deny" }
    case "explore": {
      const external: Record<string, string> = { "*": "ask" }
      for (const pattern of whitelist(options)) external[pattern] = "allow"
      return {
        "*": "deny",
        grep: "allow",
        glob: "allow",
        list: "allow",
        bash: "allow",
        webfetch: "allow",
        websearch: "allow",
        read: "allow",
        external_directory: external,
      }
    }
    default:
      return undefined
  }
}

const DESCRIPTIONS: Readonly<Record<string, { mode: AgentMode; description: string; prompt?: string }>> = {
  build: { mode: "primary", description: "The default agent: may use every tool the policy allows." },
  plan: {
    mode: "primary",
    description: "Plans without changing the project: edits are denied except plan files.",
  },
  general: {
    mode: "subagent",
    description:
      "General-purpose subagent for researching questions and carrying out tasks of several steps; start several at once for independent pieces of work.",
  },
  explore: {
    mode: "subagent",
    description:
      'Fast read-only subagent for exploring a codebase: finding files by pattern, searching code for words, answering how something works. Say how thorough it should be: "quick", "medium" or "very thorough".',
    prompt: [
      "You explore a codebase for another agent and report what you found; you change nothing.",
      "Search with glob and grep, read the files that matter, and use the shell only for commands that read.",
      "Be as thorough as you were asked to be; when not told, look in the obvious places first.",
      "Answer with what you found: the files and lines that matter (as path:line), and a short explanation.",
    ].join("\n"),
  },
}

/**
 * Every agent, built-in and custom, with its full ruleset:
 * 1. base defaults; 2. the agent's overrides; 3. each layer in order: its rules for every agent, then
 *    its rules for this one (`agent.<name>.permission`, agent files');
 * 4. `external_directory <data>/tool-output/* allow` appended, unless that exact rule is denied.
 * Its settings (description, mode, prompt, model) are the definition's over the built-in ones; a custom
 * agent is `all` unless it says otherwise. A definition with `disable: true` removes the agent (except
 * `build`, every surface's default).
 */
export function createAgents(options: AgentOptions): Map<string, Agent> {
  const agents = new Map<string, Agent>()
  const base = baseRules(options)
  const layers = options.layers ?? []
  const custom = [
    ...layers.flatMap((layer) => Object.keys(layer.agents)),
    ...Object.keys(options.definitions ?? {}),
  ]
  const names = [...new Set([...BUILTIN_AGENTS, ...custom.filter((name) => !isBuiltin(name))])]
  for (const name of names) {
    const definition = options.definitions?.[name] ?? {}
    if (definition.disable && name !== DEFAULT_AGENT) continue
    const own = overrides(name, options)
    const permission = [
      ...base,
      ...(own ? fromConfig(own, { ...homeOption(options), origin: `the ${name} agent's defaults` }) : []),
      ...layers.flatMap((layer) => [...layer.rules, ...(layer.agents[name] ?? [])]),
    ]
    for (const pattern of outputPatterns(options)) {
      const denied = permission.some(
        (rule) =>
          rule.permission === "external_directory" && rule.pattern === pattern && rule.action === "deny",
      )
      if (!denied)
        permission.push({
          permission: "external_directory",
          pattern,
          action: "allow",
          source: {
            origin: OUTPUT_STORE_ORIGIN,
            key: `permission.external_directory[${JSON.stringify(pattern)}]`,
          },
        })
    }
    const builtin = DESCRIPTIONS[name]
    const description = definition.description ?? builtin?.description
    agents.set(name, {
      name,
      mode: definition.mode ?? builtin?.mode ?? "all",
      description: description ?? `Custom agent ${name}.`,
      described: description !== undefined,
      permission,
      ...((definition.prompt ?? builtin?.prompt) ? { prompt: definition.prompt ?? builtin?.prompt } : {}),
      ...(definition.model ? { model: definition.model } : {}),
      ...(definition.steps ? { steps: definition.steps } : {}),
      ...(definition.hidden ? { hidden: true } : {}),
    })
  }
  return agents
}

/**
 * The `rules` function a permission engine takes: an agent's ruleset by name, computed once.
 * An unknown name throws `UnknownAgentError` listing the agents.
 */
export function agentRules(options: AgentOptions): (agent: string) => Ruleset {
  const agents = createAgents(options)
  return (name) => {
    const agent = agents.get(name)
    if (!agent) throw new UnknownAgentError(name, [...agents.keys()])
    return agent.permission
  }
}

/**
 * The denials a subagent's session gets on top of its parent's whole policy (which holds anyway):
 * 1. `todowrite * deny` unless the subagent's own ruleset mentions `todowrite`;
 * 2. `task * deny` unless it mentions `task`, and always when the subagent is as deep as subagents may
 *    go (`atDepthLimit`);
 * 3. `<tool> * deny` for each of `primaryTools` (tools only primary agents may use).
 * Duplicates are removed.
 */
export function subagentRules(
  subagent: Ruleset,
  options: { primaryTools?: readonly string[]; atDepthLimit?: boolean } = {},
): Rule[] {
  const denied: string[] = []
  const mentions = (permission: string) => subagent.some((rule) => rule.permission === permission)
  if (!mentions("todowrite")) denied.push("todowrite")
  if (!mentions("task") || options.atDepthLimit) denied.push("task")
  denied.push(...(options.primaryTools ?? []))
  return [...new Set(denied)].map((permission) => ({
    permission,
    pattern: "*",
    action: "deny",
    source: { origin: SUBAGENT_ORIGIN, key: `permission.${permission}` },
  }))
}

/** The source of the denials every subagent gets. */
export const SUBAGENT_ORIGIN = "toolbelt's rules for subagents"

function isBuiltin(name: string): boolean {
  return (BUILTIN_AGENTS as readonly string[]).includes(name)
}

function homeOption(options: AgentOptions): { home?: string } {
  return options.home === undefined ? {} : { home: options.home }
}

/** `<dir>/*` for the output store, also through its realpath when that differs (macOS `/var` → `/private/var`). */
function outputPatterns(options: AgentOptions): string[] {
  return globs(join(options.dataDir, "tool-output"))
}

function whitelist(options: AgentOptions): string[] {
  return [
    ...outputPatterns(options),
    ...(options.tmpDir ? globs(options.tmpDir) : []),
    ...(options.skillDirs ?? []).flatMap(globs),
  ]
}

function globs(dir: string): string[] {
  const out = [join(dir, "*")]
  try {
    const real = realpathSync(dir)
    if (real !== dir) out.push(join(real, "*"))
  } catch {
    // Not created yet: the lexical path is all there is.
  }
  return out
}

function toSlash(path: string): string {
  return sep === "\\" ? path.replaceAll("\\", "/") : path
}
