// The `mcp` key of toolbelt.json.
import { type Config, ConfigError } from "../../config/config.ts"

/** What happens to a permission ask when the client cannot show it (no elicitation). */
export type AskFallback = "reject" | "allow"

export interface McpSettings {
  /** `reject` (default): the call fails with an error that says how to allow it; `allow`: approved once. */
  readonly ask: AskFallback
}

/** Reads `{"mcp": {"ask": "reject" | "allow"}}`; anything else is a config error that says what is allowed. */
export function mcpSettings(config: Config): McpSettings {
  const section = config.mcp
  if (section === undefined) return { ask: "reject" }
  if (typeof section !== "object" || section === null || Array.isArray(section)) {
    throw new ConfigError(`Invalid config: "mcp" must be an object, e.g. {"mcp": {"ask": "reject"}}.`)
  }
  const ask = (section as { ask?: unknown }).ask
  if (ask === undefined) return { ask: "reject" }
  if (ask !== "reject" && ask !== "allow") {
    throw new ConfigError(
      `Invalid config: "mcp.ask" must be "reject" (the default) or "allow", not ${JSON.stringify(ask)}.`,
    )
  }
  return { ask }
}
