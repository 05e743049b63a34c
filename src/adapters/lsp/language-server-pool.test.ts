import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import type { Diagnostic } from "vscode-languageserver-types"
import {
  FAKE_CONFIG,
  makeProject,
  PY_PROJECT,
  TEST_LSP_CONFIG,
  TS_PROJECT,
  tagged,
  testEnv,
} from "./fixtures/lsp-project.ts"
import { LanguageServerPool, type LanguageServerPoolOptions } from "./language-server-pool.ts"

const cleanups: (() => Promise<void> | void)[] = []

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** A pool for a new project holding `files`, closed (and the project removed) after the test. */
function setup(files: Record<string, string>, options: Partial<LanguageServerPoolOptions> = {}) {
  const project = makeProject(files)
  const { env, tag } = testEnv()
  const pool = new LanguageServerPool({
    directory: project.dir,
    config: TEST_LSP_CONFIG,
    env,
    // Cold servers on a loaded machine: the tests wait for their answers, not for a deadline.
    diagnosticsWaitMs: 60_000,
    ...options,
  })
  cleanups.push(project.remove, () => pool.close())
  return { pool, dir: project.dir, tag, path: (rel: string) => join(project.dir, rel) }
}

const fake = FAKE_CONFIG

const errors = (list: readonly Diagnostic[] | undefined) =>
  (list ?? []).filter((d) => d.severity === 1).map((d) => d.message)

describe("lookup", () => {
  it("names the server for a file, and says why there is none for another type", () => {
    const { pool, path } = setup({})
    expect(pool.lookup(path("src/a.ts"))).toEqual({ kind: "servers", servers: ["typescript"] })
    expect(pool.lookup(path("app.py"))).toEqual({ kind: "servers", servers: ["pyright"] })
    const none = pool.lookup(path("notes.xyz"))
    expect(none.kind).toBe("none")
    expect(none.kind === "none" && none.reason).toContain("no language server is configured for .xyz files")
  })

  it("says which program is missing for a known server that is not installed", () => {
    const { pool, path } = setup({}, { env: { PATH: "/nonexistent" } })
    const none = pool.lookup(path("main.go"))
    expect(none.kind === "none" && none.reason).toContain(
      "the gopls server handles .go files, but gopls was not found",
    )
  })

  it("has no server at all with lsp: false, and none for a type turned off", () => {
    expect(setup({}, { config: false }).pool.lookup("/p/a.ts")).toMatchObject({ kind: "none" })
    const { pool } = setup({}, { config: { typescript: false, pyright: { disabled: true } } })
    expect(pool.lookup("/p/a.ts").kind).toBe("none")
    expect(pool.lookup("/p/a.py").kind).toBe("none")
  })

  it("adds a configured server for its extensions", () => {
    const { pool, path } = setup({}, { config: { fake } })
    expect(pool.lookup(path("x.fake"))).toEqual({ kind: "servers", servers: ["fake"] })
  })
})

describe("diagnostics from real servers", () => {
  it("typescript: an edit that introduces a type error reports it; the fix reports none", async () => {
    const { pool, path, tag } = setup(TS_PROJECT)
    const main = path("src/main.ts")
    const clean = await pool.diagnostics([main])
    expect(errors(clean.files[main])).toEqual([])

    writeFileSync(main, 'import { add } from "./math.js"\n\nexport const n: string = add(1, 2)\n')
    const broken = await pool.diagnostics([main])
    expect(errors(broken.files[main])).toEqual(["Type 'number' is not assignable to type 'string'."])
    expect(broken.files[main]![0]!.range.start).toEqual({ line: 2, character: 13 })

    writeFileSync(main, 'import { add } from "./math.js"\n\nexport const n: number = add(1, 2)\n')
    const fixed = await pool.diagnostics([main])
    expect(errors(fixed.files[main])).toEqual([])

    expect(tagged(tag).length).toBeGreaterThan(0)
    await pool.close()
    expect(tagged(tag)).toEqual([])
  })

  it("typescript: a change that breaks a caller reports the caller among the other files", async () => {
    const { pool, path } = setup(TS_PROJECT)
    const main = path("src/main.ts")
    const math = path("src/math.ts")
    await pool.diagnostics([main, math])
    writeFileSync(math, TS_PROJECT["src/math.ts"]!.replace("a: number, b: number", "a: string, b: string"))
    const result = await pool.diagnostics([math])
    expect(errors(result.files[math])).toEqual(["Type 'string' is not assignable to type 'number'."])
    expect(errors(result.others[main]).length).toBeGreaterThan(0)
  })

  it("pyright: a type error is reported, and the fix clears it", async () => {
    const { pool, path, tag } = setup(PY_PROJECT)
    const app = path("app.py")
    writeFileSync(app, `${PY_PROJECT["app.py"]}count: int = greet('x')\n`)
    const broken = await pool.diagnostics([app])
    expect(errors(broken.files[app])).toHaveLength(1)
    expect(errors(broken.files[app])[0]).toContain('Type "str" is not assignable to declared type "int"')

    writeFileSync(app, PY_PROJECT["app.py"]!)
    expect(errors((await pool.diagnostics([app])).files[app])).toEqual([])
    await pool.close()
    expect(tagged(tag)).toEqual([])
  })

  it("returns at once, starting nothing, for files no server handles", async () => {
    const { pool, path, tag } = setup({ "notes.txt": "x" })
    expect(await pool.diagnostics([path("notes.txt"), path("missing.xyz")])).toEqual({
      files: {},
      others: {},
    })
    expect(tagged(tag)).toEqual([])
  })
})

describe("servers that misbehave", () => {
  it("a server that crashes mid-session is restarted once and answers", async () => {
    const { pool, path, dir } = setup({ "a.fake": "hello\n" }, { config: { fake } })
    const hover = () =>
      pool.withServers(path("a.fake"), (s) =>
        s.request("textDocument/hover", {
          textDocument: { uri: s.uri },
          position: { line: 0, character: 0 },
        }),
      )
    expect(await hover()).toEqual([{ server: "fake", ok: true, value: { contents: "fake hover" } }])
    writeFileSync(join(dir, "mode"), "crash-once")
    expect(await hover()).toEqual([{ server: "fake", ok: true, value: { contents: "fake hover" } }])
  })

  it("a server that crashes again is reported with its exit and stderr, and not started a third time", async () => {
    const { pool, path, dir, tag } = setup({ "a.fake": "hello\n" }, { config: { fake } })
    const hover = () =>
      pool.withServers(path("a.fake"), (s) =>
        s.request("textDocument/hover", {
          textDocument: { uri: s.uri },
          position: { line: 0, character: 0 },
        }),
      )
    expect((await hover())[0]).toMatchObject({ ok: true })
    writeFileSync(join(dir, "mode"), "crash")
    const [answer] = await hover()
    expect(answer).toMatchObject({ server: "fake", ok: false })
    const error = answer!.ok ? "" : answer!.error
    expect(error).toContain("The fake language server exited unexpectedly (exit code 3)")
    expect(error).toContain("fake server crashed on purpose")
    expect(error).toContain("It failed 2 times, so toolbelt does not start it again")
    writeFileSync(join(dir, "mode"), "ok")
    expect((await hover())[0]).toMatchObject({ ok: false })
    // What a crashed server leaves (its subreaper, a worker) is killed as soon as its exit is seen.
    await waitFor(() => tagged(tag).length === 0)
  })

  it("a server that never answers is stopped after the request timeout and reported", async () => {
    const { pool, path, dir, tag } = setup(
      { "a.fake": "hello\n", mode: "hang" },
      {
        config: { fake },
        timeouts: { requestMs: 500 },
      },
    )
    const [answer] = await pool.withServers(path("a.fake"), (s) =>
      s.request("textDocument/hover", { textDocument: { uri: s.uri }, position: { line: 0, character: 0 } }),
    )
    expect(answer).toMatchObject({ ok: false })
    expect(!answer!.ok && answer!.error).toContain(
      "did not answer textDocument/hover within 0.5 s, so it was stopped",
    )
    await waitFor(() => tagged(tag).length === 0)
    writeFileSync(join(dir, "mode"), "ok")
    expect((await pool.withServers(path("a.fake"), async (s) => s.server))[0]).toMatchObject({
      ok: true,
      value: "fake",
    })
  })

  it("a server that never finishes starting is stopped; an edit's diagnostics do not wait past their bound", async () => {
    const { pool, path, tag } = setup(
      { "a.fake": "ERROR: boom\n", mode: "silent" },
      {
        config: { fake },
        timeouts: { startMs: 500 },
        diagnosticsWaitMs: 200,
      },
    )
    expect(await pool.diagnostics([path("a.fake")])).toEqual({ files: {}, others: {} })
    const [answer] = await pool.withServers(path("a.fake"), async () => "never")
    expect(!answer!.ok && answer!.error).toContain("did not finish starting within 0.5 s")
    await waitFor(() => tagged(tag).length === 0)
  })

  it("the fake server's pushed errors arrive as diagnostics", async () => {
    const { pool, path } = setup({ "a.fake": "fine\nERROR: broken here\n" }, { config: { fake } })
    const result = await pool.diagnostics([path("a.fake")])
    expect(errors(result.files[path("a.fake")])).toEqual(["broken here"])
  })

  it("close kills a server that is still starting", async () => {
    const { pool, path, tag } = setup({ "a.fake": "x\n", mode: "silent" }, { config: { fake } })
    const pending = pool.withServers(path("a.fake"), async () => "never")
    await waitFor(() => tagged(tag).length > 0)
    await pool.close()
    expect(tagged(tag)).toEqual([])
    expect((await pending)[0]).toMatchObject({ ok: false })
  })
})

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 50))
}
