// The per-call search settings a runner can pass in a tool context's `extra` bag.
import { DEFAULT_TIMEOUT_MS } from "./backend.ts"
import type { BackendChoice } from "./select.ts"

export interface SearchSettings {
  readonly choice: BackendChoice
  readonly timeoutMs: number
}

/**
 * Reads `searchTimeoutMs` (default 30 s), `searchBackend` (`ripgrep` | `fallback`) and `ripgrepPath` from
 * a context's `extra`; values of the wrong type are ignored.
 */
export function searchSettings(extra: Readonly<Record<string, unknown>>): SearchSettings {
  const timeout = extra.searchTimeoutMs
  const backend = extra.searchBackend
  const ripgrepPath = extra.ripgrepPath
  return {
    choice: {
      ...(backend === "ripgrep" || backend === "fallback" ? { backend } : {}),
      ...(typeof ripgrepPath === "string" && ripgrepPath !== "" ? { ripgrepPath } : {}),
    },
    timeoutMs:
      typeof timeout === "number" && Number.isFinite(timeout) && timeout >= 0 ? timeout : DEFAULT_TIMEOUT_MS,
  }
}
