import type { ClientCapabilities } from "@modelcontextprotocol/server"

/**
 * Whether a client with these capabilities shows forms (elicitation; a bare `elicitation: {}` means
 * forms). Undefined capabilities: not known yet (before `initialize`, or a 2026-07-28 connection that
 * declares them per request).
 */
export function showsForms(capabilities: ClientCapabilities | undefined): boolean | undefined {
  if (capabilities === undefined) return undefined
  const elicitation = capabilities.elicitation as { form?: unknown; url?: unknown } | undefined
  return elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined)
}
