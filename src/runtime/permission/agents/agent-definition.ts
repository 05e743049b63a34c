// What a user writes to define or change an agent, in the `agent` config key or an agent file's
// frontmatter (opencode's fields): checked here, with errors that name the key and say what to write.

import { ConfigError } from "../../config/config.ts"

export type AgentMode = "primary" | "subagent" | "all"

const MODES: readonly AgentMode[] = ["primary", "subagent", "all"]

/** An agent's own settings besides its permission rules (which come from `permission` and `tools`). */
export interface AgentDefinition {
  /** What the agent is for: the `task` tool lists subagents with it. */
  readonly description?: string
  /** `primary` agents talk to the person; `subagent`s run under the task tool; `all` can do both. */
  readonly mode?: AgentMode
  /** `provider/model-id`: the model the agent runs on (default: the model of the turn that starts it). */
  readonly model?: string
  /** The system prompt (an agent file's body). */
  readonly prompt?: string
  /** The most model calls of one of its turns. */
  readonly steps?: number
  /** Left out of the `task` tool's list of subagents (still callable by name). */
  readonly hidden?: boolean
  /** The agent does not exist. */
  readonly disable?: boolean
}

/**
 * Reads the settings of `agent.<name>` (config) or an agent file's frontmatter. Unknown keys
 * (`temperature`, `color`, ...) are left alone; a known key with a wrong type throws a `ConfigError`
 * naming `where` (e.g. `agent.review in /p/toolbelt.json`).
 */
export function readAgentDefinition(
  value: Readonly<Record<string, unknown>>,
  where: string,
): AgentDefinition {
  const text = (key: string): string | undefined => {
    const found = value[key]
    if (found === undefined || found === null) return undefined
    if (typeof found !== "string") throw invalid(where, key, "text", found)
    return found
  }
  const flag = (key: string): boolean | undefined => {
    const found = value[key]
    if (found === undefined || found === null) return undefined
    if (typeof found !== "boolean") throw invalid(where, key, "true or false", found)
    return found
  }
  const mode = text("mode")
  if (mode !== undefined && !(MODES as readonly string[]).includes(mode))
    throw invalid(where, "mode", `one of ${MODES.map((each) => `"${each}"`).join(", ")}`, mode)
  const model = text("model")
  if (model !== undefined && !/^[^/\s]+\/\S+$/.test(model))
    throw invalid(
      where,
      "model",
      'a model as "provider/model-id" (e.g. "anthropic/claude-sonnet-4-5")',
      model,
    )
  const stepsValue = value.steps ?? value.maxSteps
  if (
    stepsValue !== undefined &&
    stepsValue !== null &&
    !(typeof stepsValue === "number" && Number.isInteger(stepsValue) && stepsValue > 0)
  )
    throw invalid(where, "steps", "a positive whole number", stepsValue)
  const description = text("description")?.trim()
  const prompt = text("prompt")
  const hidden = flag("hidden")
  const disable = flag("disable")
  return {
    ...(description ? { description } : {}),
    ...(mode ? { mode: mode as AgentMode } : {}),
    ...(model ? { model } : {}),
    ...(prompt?.trim() ? { prompt: prompt.trim() } : {}),
    ...(typeof stepsValue === "number" ? { steps: stepsValue } : {}),
    ...(hidden === undefined ? {} : { hidden }),
    ...(disable === undefined ? {} : { disable }),
  }
}

/**
 * The legacy `tools` map (`{bash: false, "mcp_*": false}`) as a `permission` value, in the order written:
 * `true` allows and `false` denies the tool's permission; `write`, `edit`, `multiedit`, `patch` and
 * `apply_patch` all belong to `edit`. Its rules go before the agent's `permission` rules, which win.
 */
export function toolsPermission(tools: unknown, where: string): Record<string, "allow" | "deny"> {
  if (tools === undefined || tools === null) return {}
  if (typeof tools !== "object" || Array.isArray(tools))
    throw invalid(where, "tools", "an object of tool names to true or false", tools)
  const permission: Record<string, "allow" | "deny"> = {}
  for (const [tool, enabled] of Object.entries(tools)) {
    if (typeof enabled !== "boolean") throw invalid(where, `tools.${tool}`, "true or false", enabled)
    permission[EDITORS.has(tool) ? "edit" : tool] = enabled ? "allow" : "deny"
  }
  return permission
}

/** Tools whose permission is `edit`. */
const EDITORS: ReadonlySet<string> = new Set(["write", "edit", "multiedit", "patch", "apply_patch"])

/** Merges definitions written in several places: a later one's settings replace an earlier one's. */
export function mergeDefinitions(...definitions: (AgentDefinition | undefined)[]): AgentDefinition {
  let merged: AgentDefinition = {}
  for (const definition of definitions) if (definition) merged = { ...merged, ...definition }
  return merged
}

function invalid(where: string, key: string, expected: string, got: unknown): ConfigError {
  const shown = typeof got === "string" ? JSON.stringify(got) : Array.isArray(got) ? "a list" : typeof got
  return new ConfigError(`Invalid ${key} of ${where}: expected ${expected}, got ${shown}.`)
}
