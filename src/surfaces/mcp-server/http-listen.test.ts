import { lstat, mkdtemp, readdir, rm } from "node:fs/promises"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { bindOf, ListenError, listenOn, tokenFor } from "./http-listen.ts"

describe("tokenFor", () => {
  const port = { port: 0, host: "127.0.0.1" }
  it.each([
    ["a given token, as it is", { token: "chosen", bind: port }, "chosen"],
    ["none on a socket", { token: undefined, bind: { socket: "/tmp/s" } }, undefined],
    ["none when told so, on loopback", { token: false as const, bind: port }, undefined],
    ["a given token on a socket too", { token: "chosen", bind: { socket: "/tmp/s" } }, "chosen"],
  ])("%s", (_name, options, expected) => {
    expect(tokenFor(options)).toBe(expected)
  })

  it("makes up a different random one on every port, loopback included", () => {
    const first = tokenFor({ token: undefined, bind: port })
    expect(first).toMatch(/^[\w-]{32}$/)
    expect(tokenFor({ token: undefined, bind: port })).not.toBe(first)
  })

  it("refuses no token beyond loopback, and an empty one", () => {
    expect(() => tokenFor({ token: false, bind: { port: 0, host: "0.0.0.0" } })).toThrow(
      /without a token would let other machines run tools/,
    )
    expect(() => tokenFor({ token: "", bind: port })).toThrow(ListenError)
  })
})

describe("bindOf", () => {
  it("a socket alone, or a port on 127.0.0.1 by default", () => {
    expect(bindOf({ socket: "/tmp/s" })).toEqual({ socket: "/tmp/s" })
    expect(bindOf({ port: 0 })).toEqual({ port: 0, host: "127.0.0.1" })
    expect(() => bindOf({ socket: "/tmp/s", port: 0 })).toThrow(/replaces the port/)
    expect(() => bindOf({})).toThrow(ListenError)
  })
})

describe("listenOn a socket", () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "tb-listen-"))
  })
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it("is 0600 at its name, leaves its private folder only until release, then nothing", async () => {
    const server = createServer((_request, response) => response.end("ok"))
    const path = join(dir, "a.sock")
    const listening = await listenOn(server, { socket: path })
    expect(listening.socket).toBe(path)
    expect((await lstat(path)).mode & 0o777).toBe(0o600)
    const folders = (await readdir(dir)).filter((name) => name.startsWith(".toolbelt-"))
    expect(folders).toHaveLength(1)
    expect(await readdir(join(dir, folders[0]!))).toEqual([])
    await new Promise<void>((resolve) => server.close(() => resolve()))
    await listening.release()
    expect(await readdir(dir)).toEqual([])
  })

  it("refuses a path too long for a socket", async () => {
    const server = createServer()
    await expect(listenOn(server, { socket: join(dir, "x".repeat(120)) })).rejects.toThrow(
      /at most 107: choose a shorter --socket path/,
    )
  })
})
