// Where the store comes from (`--store`, `TOOLBELT_STORE`, config "store"), what is refused, and that a
// store URL's password never shows: none of these need a PostgreSQL server (a refused port stands in).
import { existsSync } from "node:fs"
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { internals } from "../../src/compose/internals.ts"
import { configuredStore } from "../../src/compose/open-project.ts"
import { createToolbelt } from "../../src/compose/toolbelt.ts"
import { storePath } from "../../src/platform/store/store.ts"
import { loadConfigLayers } from "../../src/runtime/config/config.ts"
import { cliEnv, runCli } from "../fixtures/cli.ts"

/** A URL whose server refuses: port 1 on loopback. Its password must never be printed. */
const REFUSED = "postgres://u:SECRET@127.0.0.1:1/db"

const made: string[] = []
afterEach(async () => {
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true })
})

async function tempDir(prefix: string): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)))
  made.push(dir)
  return dir
}

/** A project with `a.txt` and a home (config dir, data dir) of its own. */
async function setUp(projectConfig?: object) {
  const dir = await tempDir("toolbelt-store-project-")
  const home = await tempDir("toolbelt-store-home-")
  await writeFile(join(dir, "a.txt"), "alpha\n")
  if (projectConfig) await writeFile(join(dir, "toolbelt.json"), JSON.stringify(projectConfig))
  return { dir, home }
}

async function writeUserConfig(home: string, config: object): Promise<void> {
  await mkdir(join(home, ".config", "toolbelt"), { recursive: true })
  await writeFile(join(home, ".config", "toolbelt", "toolbelt.json"), JSON.stringify(config))
}

describe("--store on every command that opens the store", () => {
  it.each(["call", "run", "tools", "mcp", "serve", "permissions"])(
    "%s --help documents --store URL",
    async (name) => {
      const { dir, home } = await setUp()
      const help = runCli([name, "--help"], { cwd: dir, home })
      expect(help.status).toBe(0)
      expect(help.stdout).toContain("--store URL")
      expect(help.stdout).toContain("postgres://user:password@host:port/db")
      expect(help.stdout).toContain("$TOOLBELT_STORE")
      expect(help.stdout).toContain("A file path is refused")
    },
  )

  it("a file path is refused as a usage error, and no file is made", async () => {
    const { dir, home } = await setUp()
    const out = runCli(["call", "read", '{"filePath":"a.txt"}', "--store", "records.db"], { cwd: dir, home })
    expect(out.status).toBe(2)
    expect(out.stderr).toContain('--store is "records.db": it takes a PostgreSQL URL')
    expect(existsSync(join(dir, "records.db"))).toBe(false)
  })

  it("a TOOLBELT_STORE that is not a postgres URL is refused, its password not shown", async () => {
    const { dir, home } = await setUp()
    const out = runCli(["call", "read", '{"filePath":"a.txt"}'], {
      cwd: dir,
      home,
      env: { TOOLBELT_STORE: "postgress://u:SECRET@127.0.0.1/db" },
    })
    expect(out.status).toBe(1)
    expect(out.stderr).toContain('TOOLBELT_STORE is "postgress://u:***@127.0.0.1/db"')
    expect(`${out.stdout}${out.stderr}`).not.toContain("SECRET")
  })

  it("a refused connection names the store without its password, on stderr and in --json", async () => {
    const { dir, home } = await setUp()
    for (const extra of [[], ["--json"]]) {
      const out = runCli(["call", "read", '{"filePath":"a.txt"}', "--store", REFUSED, ...extra], {
        cwd: dir,
        home,
      })
      expect(out.status).toBe(1)
      expect(out.stderr).toContain("postgres://u:***@127.0.0.1:1/db")
      expect(out.stderr).toContain("ECONNREFUSED")
      expect(`${out.stdout}${out.stderr}`).not.toContain("SECRET")
      if (extra.length) expect(JSON.parse(out.stdout)).toMatchObject({ status: "error" })
    }
  })

  it("every command that opens the store takes --store (a refused one fails each, redacted)", async () => {
    const { dir, home } = await setUp()
    for (const args of [
      ["tools"],
      ["permissions", "list"],
      ["serve", "--port", "0"],
      ["mcp", "--http", "0"],
    ]) {
      const out = runCli([...args, "--store", REFUSED], { cwd: dir, home, timeout: 30_000 })
      expect(out.status, args.join(" ")).toBe(1)
      expect(out.stderr).toContain("postgres://u:***@127.0.0.1:1/db")
      expect(`${out.stdout}${out.stderr}`).not.toContain("SECRET")
    }
  })

  it("--store wins over TOOLBELT_STORE, which is not even read", async () => {
    const { dir, home } = await setUp()
    const out = runCli(["call", "read", '{"filePath":"a.txt"}', "--store", REFUSED], {
      cwd: dir,
      home,
      env: { TOOLBELT_STORE: "not a url" },
    })
    expect(out.stderr).toContain("postgres://u:***@127.0.0.1:1/db")
    expect(out.stderr).not.toContain("not a url")
  })
})

describe('an untrusted project\'s "store"', () => {
  it("is left out and reported: the call is recorded in the data dir's SQLite file", async () => {
    const { dir, home } = await setUp({ store: REFUSED })
    const call = runCli(["call", "read", '{"filePath":"a.txt"}', "--json"], { cwd: dir, home })
    expect(call.status).toBe(0)
    expect(JSON.parse(call.stdout)).toMatchObject({ status: "completed" })
    expect(existsSync(join(home, "data"))).toBe(true)
    expect(`${call.stdout}${call.stderr}`).not.toContain("SECRET")

    const tools = runCli(["tools"], { cwd: dir, home })
    expect(tools.status).toBe(0)
    expect(tools.stdout).toContain('config key "store"')
    expect(`${tools.stdout}${tools.stderr}`).not.toContain("SECRET")

    // The library: the same choice, and the key among what was left out.
    const toolbelt = await createToolbelt({ directory: dir, env: cliEnv(home), mcp: false })
    try {
      expect(toolbelt.trust.trusted).toBe(false)
      expect(toolbelt.trust.leftOut.map((item) => item.detail)).toContain(
        'config key "store" can run code, contact a host or loosen the policy',
      )
      expect(internals(toolbelt).store.path).toBe(storePath(join(home, "data")))
    } finally {
      await toolbelt.close()
    }
  })

  it("applies once the project is trusted (--trust): the refused store is tried", async () => {
    const { dir, home } = await setUp({ store: REFUSED })
    const out = runCli(["call", "read", '{"filePath":"a.txt"}', "--trust"], { cwd: dir, home })
    expect(out.status).toBe(1)
    expect(out.stderr).toContain("postgres://u:***@127.0.0.1:1/db")
    expect(`${out.stdout}${out.stderr}`).not.toContain("SECRET")
  })
})

describe("configuredStore: TOOLBELT_STORE > the user's config > a trusted project's", () => {
  const user = "postgres://user@h/u"
  const project = "postgres://project@h/p"

  it("takes each in its turn", async () => {
    const { dir, home } = await setUp({ store: project })
    const env = cliEnv(home)
    const bare = await loadConfigLayers(dir, env)
    expect(configuredStore(env, bare, { trusted: true })).toBe(project)
    expect(configuredStore(env, bare, { trusted: false })).toBeUndefined()
    await writeUserConfig(home, { store: user })
    const layers = await loadConfigLayers(dir, env)
    expect(configuredStore(env, layers, { trusted: true })).toBe(user)
    expect(configuredStore(env, layers, { trusted: false })).toBe(user)
    expect(
      configuredStore({ ...env, TOOLBELT_STORE: " postgresql://env@h/e " }, layers, { trusted: true }),
    ).toBe("postgresql://env@h/e")
    // Empty is unset.
    expect(configuredStore({ ...env, TOOLBELT_STORE: "" }, layers, { trusted: true })).toBe(user)
  })

  it("a value that is not a postgres URL is an error naming its file", async () => {
    const { dir, home } = await setUp()
    await writeUserConfig(home, { store: 42 })
    const env = cliEnv(home)
    const layers = await loadConfigLayers(dir, env)
    expect(() => configuredStore(env, layers, { trusted: false })).toThrow(
      `"store" in ${join(home, ".config", "toolbelt", "toolbelt.json")} is 42: it takes a PostgreSQL URL`,
    )
  })

  it("the library refuses a store option that is not a postgres URL, naming it", async () => {
    const { dir, home } = await setUp()
    await expect(
      createToolbelt({ directory: dir, env: cliEnv(home), store: "./x.db", mcp: false }),
    ).rejects.toThrow('The store option is "./x.db": it takes a PostgreSQL URL')
  })
})
