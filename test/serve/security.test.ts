// Who may use `toolbelt serve`: Host and Origin refusals (DNS rebinding, other sites' pages), the
// token (bearer, the one-time login link, the cookie), bounded bodies, and the page's own headers.
import { createHash } from "node:crypto"
import { request as httpRequest } from "node:http"
import { afterEach, describe, expect, it } from "vitest"
import { anonymous, api, authFor, type Running, startServer } from "./helpers.ts"

let running: Running | undefined
afterEach(async () => {
  await running?.close()
  running = undefined
})

/** A request with exactly these headers (fetch would not send a Host of our choosing). */
function raw(
  url: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { hostname, port, path, method: options.method ?? "GET", headers: options.headers ?? {} },
      (response) => {
        let body = ""
        response.setEncoding("utf8")
        response.on("data", (chunk: string) => {
          body += chunk
        })
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
        )
      },
    )
    request.on("error", reject)
    if (options.body !== undefined) request.write(options.body)
    request.end()
  })
}

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
}
const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" }

describe("Host and Origin", () => {
  it("refuses a Host that is not this server's (DNS rebinding), on the API, the page and /mcp", async () => {
    running = await startServer()
    for (const path of ["/api/info", "/", "/events"]) {
      const refused = await raw(running.url, path, { headers: { host: "evil.example:4517" } })
      expect(refused.status).toBe(403)
      expect(JSON.parse(refused.body).error).toContain("Host")
    }
    const mcp = await raw(running.url, "/mcp", {
      method: "POST",
      headers: { host: "evil.example", "content-type": "application/json" },
      body: "{}",
    })
    expect(mcp.status).toBe(403)
    expect(JSON.parse(mcp.body).error.message).toContain("Host")
    const { port } = new URL(running.url)
    const named = { host: `localhost:${port}`, ...authFor(running.url) }
    expect((await raw(running.url, "/api/info", { headers: named })).status).toBe(200)
  })

  it("refuses requests from other pages (Origin, Sec-Fetch-Site), even another port of this machine", async () => {
    running = await startServer()
    const { url } = running
    const { port } = new URL(url)
    const post = (headers: Record<string, string>) =>
      raw(url, "/api/sessions", {
        method: "POST",
        headers: {
          host: `127.0.0.1:${port}`,
          "content-type": "application/json",
          ...authFor(url),
          ...headers,
        },
        body: "{}",
      })
    const evil = await post({ origin: "http://evil.example" })
    expect(evil.status).toBe(403)
    expect(JSON.parse(evil.body).error).toContain("http://evil.example")
    expect((await post({ origin: "http://127.0.0.1:9" })).status).toBe(403)
    expect((await post({ origin: "null" })).status).toBe(403)
    expect((await post({ "sec-fetch-site": "cross-site" })).status).toBe(403)
    expect((await post({ "sec-fetch-site": "same-site" })).status).toBe(403)
    // Its own page.
    expect((await post({ origin: `http://127.0.0.1:${port}`, "sec-fetch-site": "same-origin" })).status).toBe(
      201,
    )
    // Not a page at all (curl, scripts).
    expect((await post({})).status).toBe(201)
    expect((await api(url, "GET", "/api/sessions")).body).toHaveLength(2)
  })

  it("/mcp applies the API's rules: another port of localhost and Sec-Fetch-Site cross-site are refused", async () => {
    running = await startServer()
    const { url } = running
    const { port } = new URL(url)
    const other = Number(port) === 65535 ? 65534 : Number(port) + 1
    const post = (headers: Record<string, string>) =>
      raw(url, "/mcp", {
        method: "POST",
        headers: { host: `localhost:${port}`, ...MCP_HEADERS, ...authFor(url), ...headers },
        body: JSON.stringify(initialize),
      })
    const refusedHeaders: Record<string, string>[] = [
      { origin: `http://localhost:${other}` },
      { origin: `http://127.0.0.1:${other}` },
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-site" },
    ]
    for (const headers of refusedHeaders) {
      const refused = await post(headers)
      expect(refused.status, JSON.stringify(headers)).toBe(403)
      expect(JSON.parse(refused.body).error.message).toContain("Forbidden")
    }
    // Its own page's origin, and a client that is no page at all.
    expect((await post({ origin: `http://localhost:${port}`, "sec-fetch-site": "same-origin" })).status).toBe(
      200,
    )
    expect((await post({})).status).toBe(200)
  })
})

describe("the token", () => {
  it("on loopback, a token is made up by default: without it the API, /events and /mcp answer 401", async () => {
    running = await startServer()
    const { url, server } = running
    expect(server.token).toMatch(/^[\w-]{32,}$/)
    expect(server.pageURL).toMatch(/\/\?login=[\w-]{20,}$/)
    for (const path of ["/api/info", "/api/sessions", "/events"]) {
      expect((await anonymous(url, "GET", path)).status, path).toBe(401)
    }
    expect((await anonymous(url, "POST", "/api/sessions", { title: "x" })).status).toBe(401)
    const mcp = await anonymous(url, "POST", "/mcp", initialize, MCP_HEADERS)
    expect(mcp.status).toBe(401)
    expect(mcp.body.error.message).toContain("Authorization: Bearer")
    const bearer = { authorization: `Bearer ${server.token}` }
    expect((await anonymous(url, "GET", "/api/info", undefined, bearer)).body.auth).toBe(true)
    const admitted = await fetch(`${url}/mcp`, {
      method: "POST",
      headers: { ...MCP_HEADERS, ...bearer },
      body: JSON.stringify(initialize),
    })
    expect(admitted.status).toBe(200)
    await admitted.body?.cancel()
  })

  it("with token false (--no-token), no auth: the page link has no login code and login is refused", async () => {
    running = await startServer({ token: false })
    expect(running.server.token).toBeUndefined()
    expect(running.server.pageURL).toBe(`${running.url}/`)
    expect((await anonymous(running.url, "GET", "/api/info")).body.auth).toBe(false)
    const login = await anonymous(running.url, "POST", "/api/login", { token: "x" })
    expect(login.status).toBe(400)
  })

  it("refuses token false beyond loopback: other machines could run tools", async () => {
    await expect(startServer({ host: "0.0.0.0", token: false })).rejects.toThrow(
      /Binding to 0\.0\.0\.0 without a token would let other machines run tools/,
    )
  })

  it("with a token: bearer or cookie on everything but the page's files; the login link works once", async () => {
    running = await startServer({ token: "s3cret-token" })
    const { url } = running
    for (const path of ["/api/info", "/api/sessions", "/events", "/api/approvals"]) {
      const refused = await anonymous(url, "GET", path)
      expect(refused.status).toBe(401)
      expect(refused.headers.get("www-authenticate")).toContain("Bearer")
      expect(refused.body.error).toContain("Authorization: Bearer")
    }
    expect(
      (await anonymous(url, "GET", "/api/info", undefined, { authorization: "Bearer nope" })).status,
    ).toBe(401)
    expect(
      (await api(url, "GET", "/api/info", undefined, { authorization: "Bearer s3cret-token" })).status,
    ).toBe(200)
    // What anyone may fetch: the page's files, the API's description.
    for (const path of ["/", "/assets/app.js", "/vendor/preact.mjs", "/openapi.json"]) {
      expect((await fetch(`${url}${path}`)).status).toBe(200)
    }

    // The login link: a cookie (HttpOnly, SameSite=Strict, named after the port), then a redirect.
    const link = running.server.pageURL
    expect(link).toMatch(/\/\?login=[\w-]{20,}$/)
    const login = await fetch(link, { redirect: "manual" })
    expect(login.status).toBe(303)
    expect(login.headers.get("location")).toBe("/")
    const cookie = login.headers.get("set-cookie")!
    const { port } = new URL(url)
    expect(cookie).toMatch(new RegExp(`^toolbelt_${port}=[\\w-]+;`))
    expect(cookie).toContain("HttpOnly")
    expect(cookie).toContain("SameSite=Strict")
    const session = cookie.split(";")[0]!
    expect((await api(url, "GET", "/api/info", undefined, { cookie: session })).status).toBe(200)
    expect(
      (await api(url, "GET", "/api/info", undefined, { cookie: `toolbelt_${port}=forged` })).status,
    ).toBe(401)
    // Used up: the same link sets no cookie any more; the token itself still logs in.
    const again = await fetch(link, { redirect: "manual" })
    expect(again.status).toBe(303)
    expect(again.headers.get("set-cookie")).toBeNull()
    expect(running.server.pageURL).toBe(`${url}/`)
    const withToken = await fetch(`${url}/?login=s3cret-token`, { redirect: "manual" })
    expect(withToken.headers.get("set-cookie")).toContain(`toolbelt_${port}=`)

    // POST /api/login: the token for a cookie.
    expect((await anonymous(url, "POST", "/api/login", { token: "wrong" })).status).toBe(401)
    const posted = await anonymous(url, "POST", "/api/login", { token: "s3cret-token" })
    expect(posted.status).toBe(204)
    const postedCookie = posted.headers.get("set-cookie")!.split(";")[0]!
    expect((await api(url, "GET", "/api/sessions", undefined, { cookie: postedCookie })).status).toBe(200)
  })

  it("with a token, /mcp needs the bearer too", async () => {
    running = await startServer({ token: "s3cret-token" })
    const refused = await anonymous(running.url, "POST", "/mcp", initialize, MCP_HEADERS)
    expect(refused.status).toBe(401)
    const admitted = await fetch(`${running.url}/mcp`, {
      method: "POST",
      headers: { ...MCP_HEADERS, authorization: "Bearer s3cret-token" },
      body: JSON.stringify(initialize),
    })
    expect(admitted.status).toBe(200)
    expect(admitted.headers.get("mcp-session-id")).toBeTruthy()
    await admitted.body?.cancel()
  })

  it("bound beyond loopback without a token, the server makes one up and needs it", async () => {
    running = await startServer({ host: "0.0.0.0" })
    expect(running.server.token).toMatch(/^[\w-]{24,}$/)
    expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect((await anonymous(running.url, "GET", "/api/info")).status).toBe(401)
    const admitted = await anonymous(running.url, "GET", "/api/info", undefined, {
      authorization: `Bearer ${running.server.token}`,
    })
    expect(admitted.status).toBe(200)
    expect(admitted.body.auth).toBe(true)
  })
})

describe("bounded bodies", () => {
  it("refuses a body over mcp.max_request_bytes with 413, with or without Content-Length", async () => {
    running = await startServer({ config: { mcp: { max_request_bytes: 1024 } } })
    const big = JSON.stringify({ title: "x".repeat(2000) })
    const declared = await api(running.url, "POST", "/api/sessions", big)
    expect(declared.status).toBe(413)
    expect(declared.body.error).toContain("max_request_bytes")
    const { port } = new URL(running.url)
    const chunked = await raw(running.url, "/api/sessions", {
      method: "POST",
      headers: {
        host: `127.0.0.1:${port}`,
        "content-type": "application/json",
        "transfer-encoding": "chunked",
        ...authFor(running.url),
      },
      body: big,
    })
    expect(chunked.status).toBe(413)
    expect((await api(running.url, "POST", "/api/sessions", { title: "fits" })).status).toBe(201)
  })
})

describe("the page", () => {
  it("is served with a policy that allows only its own files, no framing and no referrer", async () => {
    running = await startServer()
    const page = await fetch(`${running.url}/`)
    expect(page.status).toBe(200)
    expect(page.headers.get("content-type")).toContain("text/html")
    const html = await page.text()
    const policy = page.headers.get("content-security-policy")!
    expect(policy).toContain("default-src 'none'")
    expect(policy).toContain("frame-ancestors 'none'")
    expect(policy).toContain("connect-src 'self'")
    const map = /<script type="importmap">([\s\S]*?)<\/script>/.exec(html)![1]!
    expect(policy).toContain(`'sha256-${createHash("sha256").update(map).digest("base64")}'`)
    expect(page.headers.get("x-frame-options")).toBe("DENY")
    expect(page.headers.get("referrer-policy")).toBe("no-referrer")

    const script = await fetch(`${running.url}/assets/app.js`)
    expect(script.headers.get("content-type")).toContain("text/javascript")
    for (const name of ["preact.mjs", "hooks.mjs", "htm.mjs"]) {
      const vendor = await fetch(`${running.url}/vendor/${name}`)
      expect(vendor.status).toBe(200)
      expect(await vendor.text()).toContain("export")
    }
    // Only the page's own files, by name.
    for (const path of [
      "/assets/%2e%2e%2fpage.ts",
      "/assets/..%2F..%2Fpackage.json",
      "/vendor/preact.js",
      "/assets/nope.js",
    ]) {
      expect((await fetch(`${running.url}${path}`)).status).toBe(404)
    }
  })
})
