import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AddressRefused, FetchError, TooLarge } from "./errors.ts"
import { type Loopback, proxy, serve } from "./fixtures/loopback.ts"
import { guardedFetch } from "./guarded-fetch.ts"
import { readCapped } from "./read-capped.ts"
import type { Resolver } from "./resolve-host.ts"

let site: Loopback

beforeAll(async () => {
  site = await serve((request, response) => {
    const url = new URL(request.url ?? "/", "http://x")
    const hops = Number(url.searchParams.get("hops") ?? 0)
    if (url.pathname === "/hop" && hops > 0) {
      response.writeHead(302, { location: `/hop?hops=${hops - 1}` })
      response.end()
    } else if (url.pathname === "/to-file") {
      response.writeHead(301, { location: "file:///etc/passwd" })
      response.end()
    } else if (url.pathname === "/declared-big") {
      response.writeHead(200, { "content-length": String(6 * 1024 * 1024) })
      response.write("x".repeat(1024))
    } else {
      response.end(`page ${url.pathname}`)
    }
  })
})
afterAll(() => site.close())

const open = { allowHosts: ["127.0.0.1"] }
const text = (url: string, options: Partial<Parameters<typeof guardedFetch>[0]> = {}) =>
  guardedFetch({ url, env: {}, ...options }, async ({ response, url: final, redirects }) => ({
    body: await response.text(),
    final: final.href,
    redirects,
  }))

/** A resolver that answers each call from the next of `answers` (the last one repeats), counting calls. */
function scripted(...answers: string[]): Resolver & { calls: number } {
  const resolver = Object.assign(
    async () => {
      const address = answers[Math.min(resolver.calls++, answers.length - 1)]!
      return [{ address, family: address.includes(":") ? (6 as const) : (4 as const) }]
    },
    { calls: 0 },
  )
  return resolver
}

describe("guardedFetch", () => {
  it("fetches a loopback page when the policy opens it, following redirects", async () => {
    const answer = await text(`${site.origin}/hop?hops=3`, { policy: open })
    expect(answer).toEqual({
      body: "page /hop",
      final: `${site.origin}/hop?hops=0`,
      redirects: [`${site.origin}/hop?hops=3`, `${site.origin}/hop?hops=2`, `${site.origin}/hop?hops=1`],
    })
  })

  it("refuses a name that resolves to 127.0.0.1 when the guard is on; nothing is sent", async () => {
    const before = site.requests.length
    const error = await text(`http://docs.example.test:${site.port}/`, {
      resolver: scripted("127.0.0.1"),
    }).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(AddressRefused)
    expect((error as AddressRefused).message).toMatch(
      /^Refused to fetch http:\/\/docs\.example\.test:\d+\/: docs\.example\.test resolves to 127\.0\.0\.1, a loopback address\..*"allow_private": true.*"allow_hosts": \["docs\.example\.test"\]/,
    )
    expect(site.requests.length).toBe(before)
  })

  it("refuses an IPv4 loopback address written as IPv6", async () => {
    await expect(text(`http://[::ffff:127.0.0.1]:${site.port}/`)).rejects.toThrow(/a loopback address/)
  })

  it("connects to the address it checked, not to a second DNS answer (rebinding)", async () => {
    const before = site.requests.length
    // The first answer is public and passes; every later one would be loopback.
    const resolver = scripted("93.184.215.14", "127.0.0.1")
    await expect(
      text(`http://rebind.example.test:${site.port}/`, { resolver, signal: AbortSignal.timeout(1500) }),
    ).rejects.toBeDefined()
    expect(resolver.calls).toBe(1)
    expect(site.requests.length).toBe(before)
  })

  it("checks every redirect: a hop into a loopback address is refused before it is requested", async () => {
    const target = await serve((_request, response) => response.end("secret"))
    const start = await serve((_request, response) => {
      response.writeHead(302, { location: `http://127.0.0.1:${target.port}/secret` })
      response.end()
    })
    try {
      // Only the first server's name is opened.
      const error = await text(`http://localhost:${start.port}/`, {
        policy: { allowHosts: ["localhost"] },
      }).catch((caught: unknown) => caught)
      expect(error).toBeInstanceOf(AddressRefused)
      expect((error as Error).message).toMatch(`Refused to fetch http://127.0.0.1:${target.port}/secret`)
      expect(start.requests).toHaveLength(1)
      expect(target.requests).toHaveLength(0)
    } finally {
      await start.close()
      await target.close()
    }
  })

  it("gives up after 10 redirects, and refuses a redirect to a non-http URL", async () => {
    await expect(text(`${site.origin}/hop?hops=11`, { policy: open })).rejects.toThrow(
      /^Too many redirects: .* redirected more than 10 times/,
    )
    await expect(text(`${site.origin}/to-file`, { policy: open })).rejects.toThrow(
      `URL must start with http:// or https://: file:///etc/passwd (a redirect from ${site.origin}/to-file).`,
    )
  })

  it("refuses a body whose Content-Length is over the cap without reading it", async () => {
    const error = await guardedFetch(
      { url: `${site.origin}/declared-big`, env: {}, policy: open },
      ({ response }) => readCapped(response, 5 * 1024 * 1024),
    ).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(TooLarge)
    expect((error as Error).message).toBe(
      "Response too large: its Content-Length is 6291456 bytes, more than the 5 MB limit.",
    )
  })

  describe("behind a proxy", () => {
    it("goes through HTTP_PROXY, and straight to hosts NO_PROXY names", async () => {
      const forward = await proxy()
      try {
        const through = await text(`${site.origin}/via`, {
          policy: open,
          env: { HTTP_PROXY: forward.origin },
        })
        expect(through.body).toBe("page /via")
        expect(forward.targets).toEqual([`127.0.0.1:${site.port}`])
        const direct = await text(`${site.origin}/direct`, {
          policy: open,
          env: { http_proxy: forward.origin, NO_PROXY: "127.0.0.1" },
        })
        expect(direct.body).toBe("page /direct")
        expect(forward.targets).toHaveLength(1)
      } finally {
        await forward.close()
      }
    })

    it("leaves a name this machine cannot resolve to the proxy, and never connects to it directly", async () => {
      const forward = await proxy({ "web.test": "127.0.0.1" })
      const unresolvable: Resolver = async () => {
        throw Object.assign(new Error("getaddrinfo ENOTFOUND web.test"), { code: "ENOTFOUND" })
      }
      try {
        const url = `http://web.test:${site.port}/named`
        const through = await text(url, { resolver: unresolvable, env: { HTTP_PROXY: forward.origin } })
        expect(through.body).toBe("page /named")
        expect(forward.targets).toEqual([`web.test:${site.port}`])
        // NO_PROXY sends it direct: nothing checked it, so the connection's lookup refuses it.
        const direct = text(url, {
          resolver: unresolvable,
          env: { HTTP_PROXY: forward.origin, NO_PROXY: "web.test" },
        })
        await expect(direct).rejects.toBeInstanceOf(FetchError)
        await expect(direct).rejects.toThrow(/web\.test was not checked by the address guard/)
        // Without a proxy, a name that does not resolve is an error that says so.
        await expect(text(url, { resolver: unresolvable })).rejects.toThrow(/^Could not resolve web\.test/)
      } finally {
        await forward.close()
      }
    })
  })
})
