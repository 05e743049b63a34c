/**
 * How much tool output the model sees before the rest is moved to the output store. The defaults are
 * opencode's, so prompts and habits tuned against it carry over.
 */
export interface Limits {
  readonly maxLines: number
  readonly maxBytes: number
}

export const DEFAULT_LIMITS: Limits = { maxLines: 2000, maxBytes: 51200 }

/** Which end of the output the model keeps: "head" for most tools, "tail" where the end matters (shell). */
export type Direction = "head" | "tail"

/** The `tool_output` section of the config file, in its on-disk spelling. */
export interface LimitsConfig {
  max_lines?: number
  max_bytes?: number
}

/**
 * Limits for one call. A per-call override beats the config, which beats the defaults. Bad values are
 * thrown rather than clamped: a silently ignored typo in the config would make every later truncation
 * look like a bug.
 */
export function resolveLimits(config?: LimitsConfig, override?: Partial<Limits>): Limits {
  const fromConfig = {
    maxLines: checked(config?.max_lines, "tool_output.max_lines in the config", DEFAULT_LIMITS.maxLines),
    maxBytes: checked(config?.max_bytes, "tool_output.max_bytes in the config", DEFAULT_LIMITS.maxBytes),
  }
  return {
    maxLines: checked(override?.maxLines, "the maxLines override", fromConfig.maxLines),
    maxBytes: checked(override?.maxBytes, "the maxBytes override", fromConfig.maxBytes),
  }
}

function checked(value: unknown, where: string, fallback: number): number {
  if (value === undefined) return fallback
  if (typeof value === "number" && Number.isSafeInteger(value) && value > 0) return value
  throw new Error(
    `Invalid output limit: ${where} is ${describe(value)}, but it must be a positive integer. ` +
      `Set it to a whole number above 0, or remove it to fall back to ${fallback}.`,
  )
}

function describe(value: unknown): string {
  if (typeof value === "number") return String(value)
  if (typeof value === "string") return JSON.stringify(value)
  return value === null ? "null" : typeof value
}
