// Who may talk to the HTTP server: the Host and Origin checks against DNS rebinding, and the bearer
// token. Pure: a request in, a refusal (or nothing) out.
import { createHash, timingSafeEqual } from "node:crypto"
import { isIP } from "node:net"
import {
  localhostAllowedHostnames,
  validateHostHeader,
  validateOriginHeader,
} from "@modelcontextprotocol/server"

export interface GuardOptions {
  /** The address the server is bound to. */
  readonly host: string
  /** The bearer token every request must carry (required when `host` is not loopback). */
  readonly token?: string
}

/** Whether an address only accepts connections from this machine. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase()
  if (bare === "localhost" || bare === "::1") return true
  return isIP(bare) === 4 && bare.startsWith("127.")
}

/** Whether an address listens on every interface. */
export function isWildcard(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "")
  return bare === "0.0.0.0" || bare === "::" || bare === ""
}

/**
 * The hostnames a request may name (Host) or come from (Origin): the loopback names, plus the bound
 * address itself when it is a specific one. `undefined`: any (a wildcard bind; the token guards it).
 */
export function allowedHostnames(host: string): string[] | undefined {
  if (isWildcard(host)) return undefined
  const names = localhostAllowedHostnames()
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase()
  const named = isIP(bare) === 6 ? `[${bare}]` : bare
  return names.includes(named) ? names : [...names, named]
}

/**
 * Checks one request, in order: its Host names this server (DNS rebinding), its Origin (when a
 * browser sent one) is this machine or the server's own address, and it carries the token.
 * Returns the refusal to send, or undefined when the request may go on.
 */
export function refuse(request: Request, options: GuardOptions): Response | undefined {
  const allowed = allowedHostnames(options.host)
  if (allowed) {
    const host = validateHostHeader(request.headers.get("host"), allowed)
    if (!host.ok) return jsonRpcRefusal(403, `Forbidden: ${host.message}.`)
  }
  const originHeader = request.headers.get("origin")
  if (originHeader) {
    const sameHost = hostnameOf(request.headers.get("host"))
    const origins = allowed ?? [...localhostAllowedHostnames(), ...(sameHost ? [sameHost] : [])]
    const origin = validateOriginHeader(originHeader, origins)
    if (!origin.ok) return jsonRpcRefusal(403, `Forbidden: ${origin.message}.`)
  }
  if (options.token !== undefined && !bearerMatches(request.headers.get("authorization"), options.token)) {
    return jsonRpcRefusal(
      401,
      'Unauthorized: send the token as "Authorization: Bearer <token>" (set with --token or TOOLBELT_MCP_TOKEN).',
      { "www-authenticate": 'Bearer realm="toolbelt"' },
    )
  }
  return undefined
}

function hostnameOf(host: string | null): string | undefined {
  if (!host) return undefined
  return validateHostHeader(host, []).hostname
}

/** Compares in constant time (digests, so the lengths match whatever was sent). */
function bearerMatches(header: string | null, token: string): boolean {
  const match = /^Bearer\s+(.+)$/i.exec(header?.trim() ?? "")
  if (!match) return false
  const sent = createHash("sha256").update(match[1]!).digest()
  const expected = createHash("sha256").update(token).digest()
  return timingSafeEqual(sent, expected)
}

/** An HTTP refusal with a JSON-RPC error body (what MCP clients read). */
export function jsonRpcRefusal(
  status: number,
  message: string,
  headers: Record<string, string> = {},
  code = -32000,
): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  })
}
