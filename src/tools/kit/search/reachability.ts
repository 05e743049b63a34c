import { networkCode } from "../../../platform/net/errors.ts"
import type { ProviderSettings } from "./provider.ts"

/** How long a provider that could not be reached is left out before it is offered again. */
export const UNREACHABLE_FOR_MS = 5 * 60 * 1000

// Failures of the network itself (nothing answered), as opposed to a provider that answered with an error.
const UNREACHABLE_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ETIMEDOUT",
  "UND_ERR_CONNECT_TIMEOUT",
])

const down = new Map<string, { until: number; why: string }>()

const keyOf = (settings: ProviderSettings) => `${settings.provider} ${settings.url}`

/** Whether `error` says the provider could not be reached at all; if so it is remembered for a while. */
export function noteFailure(settings: ProviderSettings, error: unknown, now = Date.now()): boolean {
  const code = networkCode(error) ?? undiciCode(error)
  if (!code || !UNREACHABLE_CODES.has(code)) return false
  down.set(keyOf(settings), { until: now + UNREACHABLE_FOR_MS, why: code })
  return true
}

/** A provider that answered is reachable again at once. */
export function noteSuccess(settings: ProviderSettings): void {
  down.delete(keyOf(settings))
}

/** Why the provider is left out for now (it could not be reached a moment ago), or undefined. */
export function unreachableReason(settings: ProviderSettings, now = Date.now()): string | undefined {
  const entry = down.get(keyOf(settings))
  if (!entry) return undefined
  if (entry.until <= now) {
    down.delete(keyOf(settings))
    return undefined
  }
  const minutes = Math.ceil((entry.until - now) / 60_000)
  return `the ${settings.provider} search provider at ${settings.url} could not be reached (${entry.why}); it is offered again in ${minutes} min or when the next process starts`
}

function undiciCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === "string" && code.startsWith("UND_ERR")) return code
    current = (current as { cause?: unknown }).cause
  }
  return undefined
}
