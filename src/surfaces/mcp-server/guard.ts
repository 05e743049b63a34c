// Who may talk to the HTTP servers (`toolbelt mcp --http`, and `toolbelt serve`'s API, page and /mcp):
// the Host, Origin and Sec-Fetch-Site checks, and the bearer token. Pure: a request in, a refusal (or
// nothing) out.
import { createHash, timingSafeEqual } from "node:crypto"
import { isIP } from "node:net"
import { localhostAllowedHostnames, validateHostHeader } from "@modelcontextprotocol/server"

export interface GuardOptions {
  /** The address the server is bound to. */
  readonly host: string
  /** The bearer token every request must carry; none: no token (a Unix socket, or `--no-token`). */
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
 * Whether a request comes from where it may, the same rules for the API, the page and `/mcp`:
 * 1. Its Host names this server (`allowed`; undefined: any, a wildcard bind the token guards), so a
 *    page of another site whose name resolves to this machine (DNS rebinding) is refused.
 * 2. A browser request comes from this server's own page: an Origin other than `http(s)://<Host>`
 *    is refused, another port of localhost included (another local web app is another origin).
 * 3. `Sec-Fetch-Site: cross-site` or `same-site` is refused (a page on another port of localhost is
 *    "same-site", and a browser sends this header even where it leaves Origin out).
 * Requests without Origin and Sec-Fetch-Site (curl, MCP clients, scripts) are not from a page at all.
 * Returns why it is refused, or undefined.
 */
export function refusedOrigin(request: Request, allowed: string[] | undefined): string | undefined {
  const hostHeader = request.headers.get("host")
  if (allowed) {
    const refused = refusedHost(hostHeader, allowed)
    if (refused !== undefined) return refused
  }
  const origin = request.headers.get("origin")
  if (origin !== null && origin !== `http://${hostHeader}` && origin !== `https://${hostHeader}`) {
    return `Forbidden: requests from ${origin} are refused (Origin); only this server's own page, or a client that is not a web page, may use it.`
  }
  const site = request.headers.get("sec-fetch-site")
  if (site === "cross-site" || site === "same-site") {
    return `Forbidden: a request from another site (Sec-Fetch-Site: ${site}) is refused.`
  }
  return undefined
}

/**
 * The verdicts on Host headers seen lately, by the allowed names and the header: a client sends the same
 * one with every request, and parsing it each time was a tenth of serve's routing per call. Bounded, as
 * a client may send any Host it likes.
 */
const hostVerdicts = new Map<string, string | null>()

function refusedHost(hostHeader: string | null, allowed: string[]): string | undefined {
  const key = `${allowed.join(" ")}\n${hostHeader ?? ""}\n${hostHeader === null}`
  let verdict = hostVerdicts.get(key)
  if (verdict === undefined) {
    const host = validateHostHeader(hostHeader, allowed)
    verdict = host.ok ? null : `Forbidden: ${host.message}. Use the address the server printed.`
    if (hostVerdicts.size >= 256) hostVerdicts.clear()
    hostVerdicts.set(key, verdict)
  }
  return verdict ?? undefined
}

/** Whether an `Authorization` header carries `Bearer <token>`. */
export function bearerMatches(header: string | null, token: string): boolean {
  const match = /^Bearer\s+(.+)$/i.exec(header?.trim() ?? "")
  return match !== null && sameSecret(match[1]!, token)
}

/** Compares in constant time (digests, so the lengths match whatever was sent). */
export function sameSecret(sent: string, expected: string): boolean {
  return timingSafeEqual(
    createHash("sha256").update(sent).digest(),
    createHash("sha256").update(expected).digest(),
  )
}

/**
 * Checks one MCP request: where it comes from (`refusedOrigin`: Host, Origin, Sec-Fetch-Site), then
 * that it carries the token when the server has one. Returns the refusal to send (a JSON-RPC error
 * body, which MCP clients read), or undefined when the request may go on.
 */
export function refuse(request: Request, options: GuardOptions): Response | undefined {
  const refused = refusedOrigin(request, allowedHostnames(options.host))
  if (refused) return jsonRpcRefusal(403, refused)
  if (options.token !== undefined && !bearerMatches(request.headers.get("authorization"), options.token)) {
    return jsonRpcRefusal(401, UNAUTHORIZED_MCP, { "www-authenticate": 'Bearer realm="toolbelt"' })
  }
  return undefined
}

const UNAUTHORIZED_MCP =
  'Unauthorized: send the token as "Authorization: Bearer <token>": the one the server printed at start ("token   ..."), or the one it was given (--token, TOOLBELT_MCP_TOKEN or TOOLBELT_SERVE_TOKEN).'

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
