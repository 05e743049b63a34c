import { describe, expect, it } from "vitest"
import { allowedHostnames, isLoopback, isWildcard, refuse } from "./guard.ts"

describe("isLoopback / isWildcard", () => {
  it.each([
    ["127.0.0.1", true],
    ["127.1.2.3", true],
    ["localhost", true],
    ["::1", true],
    ["[::1]", true],
    ["0.0.0.0", false],
    ["::", false],
    ["192.168.1.5", false],
    ["example.com", false],
  ])("%s loopback: %s", (host, loopback) => {
    expect(isLoopback(host)).toBe(loopback)
  })

  it.each([
    ["0.0.0.0", true],
    ["::", true],
    ["[::]", true],
    ["127.0.0.1", false],
  ])("%s wildcard: %s", (host, wildcard) => {
    expect(isWildcard(host)).toBe(wildcard)
  })
})

describe("allowedHostnames", () => {
  it("loopback: the loopback names", () => {
    expect(allowedHostnames("127.0.0.1")).toEqual(["localhost", "127.0.0.1", "[::1]"])
  })
  it("a specific address: also that address", () => {
    expect(allowedHostnames("192.168.1.5")).toEqual(["localhost", "127.0.0.1", "[::1]", "192.168.1.5"])
    expect(allowedHostnames("fe80::1")).toEqual(["localhost", "127.0.0.1", "[::1]", "[fe80::1]"])
  })
  it("a wildcard bind: any (the token guards it)", () => {
    expect(allowedHostnames("0.0.0.0")).toBeUndefined()
  })
})

function post(headers: Record<string, string>): Request {
  return new Request("http://127.0.0.1:3000/mcp", { method: "POST", headers })
}

async function refusal(request: Request, options: Parameters<typeof refuse>[1]) {
  const response = refuse(request, options)
  if (!response) return undefined
  const body = (await response.json()) as { error: { message: string } }
  return {
    status: response.status,
    message: body.error.message,
    auth: response.headers.get("www-authenticate"),
  }
}

describe("refuse", () => {
  const loopback = { host: "127.0.0.1" }

  it.each([
    ["a loopback Host", { host: "127.0.0.1:3000" }],
    ["localhost", { host: "localhost:3000" }],
    ["its own Origin", { host: "localhost:3000", origin: "http://localhost:3000" }],
    ["its own page's fetch", { host: "localhost:3000", "sec-fetch-site": "same-origin" }],
    ["a navigation typed in", { host: "localhost:3000", "sec-fetch-site": "none" }],
  ])("lets %s through", async (_name, headers) => {
    expect(await refusal(post(headers), loopback)).toBeUndefined()
  })

  it("refuses a Host that names another machine (DNS rebinding)", async () => {
    expect(await refusal(post({ host: "evil.example:3000" }), loopback)).toMatchObject({
      status: 403,
      message: "Forbidden: Invalid Host: evil.example. Use the address the server printed.",
    })
  })

  it("judges a Host the same every time, and per bind (the verdicts it remembers do not cross binds)", async () => {
    for (let round = 0; round < 3; round++) {
      expect(await refusal(post({ host: "evil.example:3000" }), loopback)).toMatchObject({ status: 403 })
      expect(await refusal(post({ host: "127.0.0.1:3000" }), loopback)).toBeUndefined()
      // A wildcard bind lets the same Host through; its token still guards it.
      expect(await refusal(post({ host: "evil.example:3000" }), { host: "0.0.0.0" })).toBeUndefined()
      expect(await refusal(post({}), loopback)).toMatchObject({ status: 403 })
    }
  })

  it.each([
    ["another port of localhost", { origin: "http://localhost:5173" }],
    ["another loopback name", { origin: "http://127.0.0.1:3000" }],
    ["Sec-Fetch-Site: cross-site", { "sec-fetch-site": "cross-site" }],
    ["Sec-Fetch-Site: same-site (another port of localhost)", { "sec-fetch-site": "same-site" }],
  ])("refuses %s, as the API does", async (_name, headers) => {
    const refused = await refusal(post({ host: "localhost:3000", ...headers }), loopback)
    expect(refused).toMatchObject({ status: 403 })
    expect(refused!.message).toMatch(/^Forbidden: /)
  })

  it("refuses an Origin from another site, and the opaque null origin", async () => {
    expect(
      await refusal(post({ host: "127.0.0.1:3000", origin: "https://evil.example" }), loopback),
    ).toMatchObject({
      status: 403,
    })
    expect(await refusal(post({ host: "127.0.0.1:3000", origin: "null" }), loopback)).toMatchObject({
      status: 403,
    })
  })

  it("on a wildcard bind, any Host, and an Origin of that same host and port", async () => {
    const wide = { host: "0.0.0.0", token: "t" }
    const auth = { authorization: "Bearer t" }
    expect(await refusal(post({ host: "10.0.0.7:3000", ...auth }), wide)).toBeUndefined()
    expect(
      await refusal(post({ host: "10.0.0.7:3000", origin: "http://10.0.0.7:3000", ...auth }), wide),
    ).toBeUndefined()
    expect(
      await refusal(post({ host: "10.0.0.7:3000", origin: "http://10.0.0.7:8080", ...auth }), wide),
    ).toMatchObject({ status: 403 })
    expect(
      await refusal(post({ host: "10.0.0.7:3000", origin: "http://evil.example", ...auth }), wide),
    ).toMatchObject({
      status: 403,
    })
  })

  it("requires the bearer token when one is set", async () => {
    const guarded = { host: "127.0.0.1", token: "s3cret" }
    const host = { host: "127.0.0.1:3000" }
    expect(await refusal(post({ ...host, authorization: "Bearer s3cret" }), guarded)).toBeUndefined()
    expect(await refusal(post({ ...host, authorization: "bearer   s3cret" }), guarded)).toBeUndefined()
    for (const authorization of [undefined, "Bearer wrong", "Basic s3cret", "Bearer s3cret2"]) {
      const headers = authorization ? { ...host, authorization } : host
      expect(await refusal(post(headers), guarded), authorization).toMatchObject({
        status: 401,
        auth: 'Bearer realm="toolbelt"',
      })
    }
  })
})
