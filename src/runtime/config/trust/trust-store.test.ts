import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { TrustStore, trustStoreFile } from "./trust-store.ts"

let home: string

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "toolbelt-trust-store-"))
})

afterEach(async () => {
  await rm(home, { recursive: true, force: true })
})

describe("TrustStore", () => {
  it("lives in the user's config dir: XDG_CONFIG_HOME, else ~/.config", () => {
    expect(trustStoreFile({ HOME: home })).toBe(join(home, ".config", "toolbelt", "trusted-projects.json"))
    expect(trustStoreFile({ HOME: home, XDG_CONFIG_HOME: join(home, "xdg") })).toBe(
      join(home, "xdg", "toolbelt", "trusted-projects.json"),
    )
  })

  it("trusts, lists, replaces and revokes, in a file of mode 0600", async () => {
    const store = new TrustStore({ env: { HOME: home } })
    expect(store.list()).toEqual([])
    store.trust("/a", "f1")
    store.trust("/b", "f2")
    store.trust("/a", "f3")
    expect(store.list().map(({ directory, fingerprint }) => [directory, fingerprint])).toEqual([
      ["/b", "f2"],
      ["/a", "f3"],
    ])
    expect(store.get("/a")?.fingerprint).toBe("f3")
    expect((await stat(store.file)).mode & 0o777).toBe(0o600)
    expect(store.revoke("/b")).toBe(true)
    expect(store.revoke("/b")).toBe(false)
    expect(JSON.parse(await readFile(store.file, "utf8")).projects).toHaveLength(1)
  })

  it.each([
    ["not JSON", "{"],
    ["no projects", "{}"],
    ["an entry without a fingerprint", '{"projects":[{"directory":"/a","time":1}]}'],
  ])("reports a store that is %s and trusts nothing", async (_name, text) => {
    const store = new TrustStore({ env: { HOME: home } })
    store.trust("/a", "f")
    await writeFile(store.file, text)
    expect(store.problem).toMatch(/not valid .*every project is untrusted/)
    expect(store.get("/a")).toBeUndefined()
    expect(() => store.revoke("/a")).toThrow(store.file)
    expect(await readFile(store.file, "utf8")).toBe(text)
  })
})
