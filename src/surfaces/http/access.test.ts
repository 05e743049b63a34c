// Who `Access.admits`: the token as a bearer (any case of "Bearer", spaces around), or the cookie a
// login set; nothing else, whatever its length; everyone when the server has no token.
import { describe, expect, it } from "vitest"
import { Access } from "./access.ts"

const TOKEN = "s3cret-token-of-some-length"

function request(headers: Record<string, string>): Request {
  return new Request("http://127.0.0.1:4517/api/info", { headers })
}

describe("Access.admits", () => {
  it("admits the token as a bearer, and nothing like it", () => {
    const access = new Access({ host: "127.0.0.1", token: TOKEN })
    const admits = (authorization: string) => access.admits(request({ authorization }))
    expect(admits(`Bearer ${TOKEN}`)).toBe(true)
    expect(admits(`bearer   ${TOKEN}  `)).toBe(true)
    expect(admits(`Bearer ${TOKEN}x`)).toBe(false)
    expect(admits(`Bearer ${TOKEN.slice(1)}`)).toBe(false)
    expect(admits(`Bearer ${"x".repeat(TOKEN.length)}`)).toBe(false)
    expect(admits("Bearer ")).toBe(false)
    expect(admits(TOKEN)).toBe(false)
    expect(access.admits(request({}))).toBe(false)
  })

  it("admits the cookie a login set (named after the port), not the token as a cookie", () => {
    const access = new Access({ host: "127.0.0.1", token: TOKEN })
    access.listening(4517)
    const set = access.login(TOKEN)!
    const pair = set.split(";")[0]!
    expect(pair).toMatch(/^toolbelt_4517=/)
    expect(access.admits(request({ cookie: `other=1; ${pair}` }))).toBe(true)
    expect(access.admits(request({ cookie: `toolbelt_4517=${TOKEN}` }))).toBe(false)
    expect(access.admits(request({ cookie: `toolbelt_9999=${pair.split("=")[1]}` }))).toBe(false)
  })

  it("admits everyone when the server has no token", () => {
    const access = new Access({ host: "127.0.0.1" })
    expect(access.admits(request({}))).toBe(true)
  })
})
