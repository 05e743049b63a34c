// Who may use the server: requests must name it (Host), come from its own page or from no page at all
// (Origin, Sec-Fetch-Site: the rules `/mcp` applies too, in ../mcp-server/guard.ts), and, when it has a
// token (on every port unless --no-token), carry it or the page's cookie.
import { createHmac, hash, randomBytes, timingSafeEqual } from "node:crypto"
import { allowedHostnames, refusedOrigin, sameSecret } from "../mcp-server/guard.ts"
import { errorResponse } from "./api-error.ts"

export interface AccessOptions {
  /** The address the server is bound to. */
  readonly host: string
  /** Requests must carry it (`Authorization: Bearer`) or the cookie a login set; none: no auth (a socket, `--no-token`). */
  readonly token?: string
}

/** How long the page's cookie lasts. */
const COOKIE_MAX_AGE_S = 7 * 24 * 3600

/**
 * The server's access rules.
 * 1, 2. `refusedOrigin` (shared with `/mcp`): Host must be a loopback name or the bound address (DNS
 *    rebinding); a browser request must come from this server's own page (Origin, Sec-Fetch-Site).
 * 3. With a token, a request carries `Authorization: Bearer <token>` or the page's cookie. The
 *    cookie comes from the one-time login link printed at start (`/?login=<code>`; the token itself
 *    works in its place) or from `POST /api/login` with the token; it is `HttpOnly` and
 *    `SameSite=Strict`, and named after the port, so two servers on one machine keep theirs apart.
 *    Its value is derived from the token (an HMAC), so the page stays logged in across a restart with
 *    the same token, and a new token logs every page out.
 */
export class Access {
  readonly #allowed: string[] | undefined
  readonly #token: string | undefined
  /** The one-time code of the login link, until it is used. */
  #loginCode: string | undefined
  /** The cookie's value: derived from the token, never the token itself. */
  readonly #cookieValue: string | undefined
  /**
   * The digests `admits` compares a request's token and cookie with, made once: hashing both sides at
   * every request was 2% of serve's CPU per call (bench/serve-load.bench.ts).
   */
  readonly #tokenDigest: Buffer | undefined
  readonly #cookieDigest: Buffer | undefined
  #cookieName = "toolbelt"

  constructor(options: AccessOptions) {
    this.#allowed = allowedHostnames(options.host)
    this.#token = options.token
    this.#loginCode = options.token ? randomBytes(24).toString("base64url") : undefined
    this.#cookieValue = options.token
      ? createHmac("sha256", options.token).update("toolbelt serve page").digest("base64url")
      : undefined
    this.#tokenDigest = this.#token === undefined ? undefined : digest(this.#token)
    this.#cookieDigest = this.#cookieValue === undefined ? undefined : digest(this.#cookieValue)
  }

  /** Whether requests need the token (or the cookie). */
  get required(): boolean {
    return this.#token !== undefined
  }

  /** The code of the one-time login link, while it is unused. */
  get loginCode(): string | undefined {
    return this.#loginCode
  }

  /** Names the cookie after the port the server listens on. */
  listening(port: number): void {
    this.#cookieName = `toolbelt_${port}`
  }

  /** 1, 2. The refusal for a request that does not come from where it may, or nothing. */
  refuseOrigin(request: Request): Response | undefined {
    const refused = refusedOrigin(request, this.#allowed)
    return refused === undefined ? undefined : errorResponse(403, refused)
  }

  /** 3. Whether the request carries the token or a login's cookie (always true without a token). */
  admits(request: Request): boolean {
    if (this.#tokenDigest === undefined) return true
    const bearer = /^Bearer\s+(.+)$/i.exec(request.headers.get("authorization")?.trim() ?? "")?.[1]
    if (bearer !== undefined && sameDigest(bearer, this.#tokenDigest)) return true
    const cookie = cookieValue(request.headers.get("cookie"), this.#cookieName)
    return cookie !== undefined && this.#cookieDigest !== undefined && sameDigest(cookie, this.#cookieDigest)
  }

  /** The refusal for a request that needs the token and lacks it. */
  unauthorized(): Response {
    return errorResponse(
      401,
      'Unauthorized: send "Authorization: Bearer <token>" (the token toolbelt serve printed at start, or the one given with --token or TOOLBELT_SERVE_TOKEN), or open the login link it printed.',
      { headers: { "www-authenticate": 'Bearer realm="toolbelt"' } },
    )
  }

  /**
   * A login with the one-time code (used up by it) or the token: the `Set-Cookie` value for the
   * page, or undefined when the code is neither.
   */
  login(code: string): string | undefined {
    if (this.#token === undefined) return undefined
    const once = this.#loginCode !== undefined && sameSecret(code, this.#loginCode)
    if (!once && !sameSecret(code, this.#token)) return undefined
    if (once) this.#loginCode = undefined
    return `${this.#cookieName}=${this.#cookieValue}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${COOKIE_MAX_AGE_S}`
  }
}

/** SHA-256, one-shot (`crypto.hash`: a `createHash` object per request cost as much again). */
function digest(text: string): Buffer {
  return hash("sha256", text, "buffer")
}

/** Whether `sent` is the secret of `expected` (its digest), in constant time whatever its length. */
function sameDigest(sent: string, expected: Buffer): boolean {
  return timingSafeEqual(digest(sent), expected)
}

function cookieValue(header: string | null, name: string): string | undefined {
  if (!header) return undefined
  for (const pair of header.split(";")) {
    const at = pair.indexOf("=")
    if (at > 0 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim()
  }
  return undefined
}
