// The MCP revisions toolbelt negotiates through `initialize`, and what each one allows on the wire.
import { SUPPORTED_PROTOCOL_VERSIONS, type Transport } from "@modelcontextprotocol/server"

/**
 * The published 2025-era revisions, newest first. The SDK also accepts `2024-10-07`, a draft that
 * was never published: a client asking for it (or for any revision not listed here) is answered
 * with the newest one, as the spec's negotiation says, and disconnects if it cannot speak it.
 */
export const PROTOCOL_VERSIONS: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS.filter(
  (version) => version !== "2024-10-07",
)

/** A 2025-era revision (negotiated by `initialize`; the SDK calls these legacy), not 2026-07-28's. */
export function isLegacyVersion(version: string): boolean {
  return PROTOCOL_VERSIONS.includes(version)
}

/** JSON-RPC batches exist in 2025-03-26 only: added by it, removed by 2025-06-18. */
export function allowsBatches(version: string | undefined): boolean {
  return version === "2025-03-26"
}

/**
 * Whether elicitation schemas may use titled enums (`oneOf` of `{const, title}`), which 2025-11-25
 * introduced; older revisions know only `enum` with `enumNames`. Unknown (no version: the
 * 2026-07-28 per-request era) → the newest form.
 */
export function knowsTitledEnums(version: string | undefined): boolean {
  return version === undefined || version >= "2025-11-25"
}

/**
 * Follows the revision a connection negotiates: the SDK tells the transport at `initialize`
 * (`setProtocolVersion`); this keeps it, and still passes it on to what the transport did with it.
 */
export function trackProtocolVersion(transport: Transport): () => string | undefined {
  let negotiated: string | undefined
  const forward = transport.setProtocolVersion?.bind(transport)
  transport.setProtocolVersion = (version) => {
    negotiated = version
    forward?.(version)
  }
  return () => negotiated
}
