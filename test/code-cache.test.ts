// bin/toolbelt.js runs the build's chunks with a V8 code cache made after a run: the next start of the
// same command compiles nothing it compiled before. Checked on a stand-in build (an entry and a core chunk)
// run by the real bin/toolbelt.js: what is cached, where, under which name, and that a changed chunk or a
// bad cache never runs stale code.
import { spawn, spawnSync } from "node:child_process"
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { Script } from "node:vm"
import { afterEach, describe, expect, it } from "vitest"

const BIN_DIR = join(resolve(import.meta.dirname, ".."), "bin")
const CORE = "cli.bundle-core-AbC123.cjs"

let dirs: string[] = []
afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  dirs = []
})

/** A core chunk: `answer` (lazily compiled, only called by `run`) and what the entry asks of it. */
function coreChunk(answer: string): string {
  const big = Array.from({ length: 200 }, (_, i) => `  total += (n * ${i + 1}) % 7`).join("\n")
  // The first line throws: the wrapper the loader compiles a chunk in must not shift its columns.
  return `"use strict";exports.fail = () => { throw new Error("thrown in core") }
function heavy(n) {
  let total = 0
${big}
  return total
}
function answer() { return ${JSON.stringify(answer)} + ":" + heavy(3) }
exports.run = async (argv) => {
  if (argv.includes("throw")) exports.fail()
  if (argv.includes("import")) return (await import(process.env.ESM_URL)).default
  if (argv.includes("wait")) { setInterval(() => {}, 1000); return "waiting" }
  if (argv.includes("busy")) {
    const until = Date.now() + 3500
    const spin = () => { const end = Date.now() + 20; while (Date.now() < end); if (Date.now() < until) setImmediate(spin); else { require("node:fs").writeFileSync(process.env.MARK, ""); setInterval(() => {}, 1000) } }
    spin()
    return "busy"
  }
  if (argv.includes("sloppy")) { undeclared = 1; return "sloppy" }
  return answer() + " " + require("node:path").basename(__filename)
}
`
}

/** A package laid out like an installed one (no src/): bin/ is the real one, dist/ the stand-in build. */
function layout(): { root: string; home: string; cacheDir: string } {
  const base = mkdtempSync(join(tmpdir(), "toolbelt-code-cache-"))
  dirs.push(base)
  const root = join(base, "toolbelt")
  mkdirSync(join(root, "bin"), { recursive: true })
  mkdirSync(join(root, "dist"))
  copyFileSync(join(BIN_DIR, "toolbelt.js"), join(root, "bin", "toolbelt.js"))
  writeFileSync(join(root, "package.json"), '{"type":"module"}')
  writeFileSync(
    join(root, "dist", "cli.bundle.cjs"),
    `"use strict";
if (process.argv.includes("flaky")) {
  try { require("./cli.bundle-flaky-X.cjs") } catch (error) { console.log("first: " + error.message) }
  console.log("again: " + require("./cli.bundle-flaky-X.cjs").value)
  return
}
require("./${CORE}").run(process.argv.slice(2)).then((out) => console.log(out), (error) => { console.log(error.stack); process.exitCode = 1 })
`,
  )
  writeFileSync(join(root, "dist", CORE), coreChunk("first"))
  writeFileSync(
    join(root, "dist", "cli.bundle-flaky-X.cjs"),
    `"use strict";
exports.value = "half"
if (!globalThis.flakyRan) { globalThis.flakyRan = true; throw new Error("failed once") }
exports.value = "whole"
`,
  )
  const home = join(base, "home")
  mkdirSync(home, { mode: 0o700 })
  return { root, home, cacheDir: join(home, ".cache", "toolbelt", "code-cache") }
}

function run(root: string, home: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  return spawnSync(process.execPath, [join(root, "bin", "toolbelt.js"), ...args], {
    encoding: "utf8",
    env: { PATH: process.env.PATH, HOME: home, TOOLBELT_RUN: "build", ...env },
  })
}

/** The cache files, by name, with their inode (a rewritten cache is a new file, renamed into place). */
function caches(cacheDir: string): Map<string, number> {
  if (!existsSync(cacheDir)) return new Map()
  return new Map(readdirSync(cacheDir).map((name) => [name, statSync(join(cacheDir, name)).ino]))
}

const named = (files: Map<string, number>, part: string) =>
  [...files.keys()].filter((name) => name.includes(part))

describe("the build's code cache", () => {
  it("is written after the run, privately, and the next start of the command uses it as it is", () => {
    const { root, home, cacheDir } = layout()
    const first = run(root, home, ["call", "read", "{}"])
    expect(first.stderr).toBe("")
    expect(first.stdout).toMatch(/^first:\d+ cli\.bundle-core-AbC123\.cjs\n$/)
    const written = caches(cacheDir)
    expect(named(written, ".call-read.v8cache")).toHaveLength(2)
    expect(named(written, CORE)).toHaveLength(1)
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700)
    for (const name of written.keys()) expect(statSync(join(cacheDir, name)).mode & 0o777).toBe(0o600)

    // Made after the run: it holds the functions the command called, which a cache made at compile time
    // (what Node's compile cache keeps) does not.
    const coreCache = named(written, CORE)[0]!
    const source = readFileSync(join(root, "dist", CORE), "utf8")
    const atCompile = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`)
    expect(statSync(join(cacheDir, coreCache)).size).toBeGreaterThan(
      atCompile.createCachedData().length + 2000,
    )

    const second = run(root, home, ["call", "read", "{}"])
    expect(second.stdout).toBe(first.stdout)
    // Accepted: a cache V8 rejected, or one not read, would have been written again.
    expect(caches(cacheDir)).toEqual(written)
  })

  it("never runs a changed chunk from the old chunk's cache, even one of the same length", () => {
    const { root, home, cacheDir } = layout()
    expect(run(root, home, ["tools"]).stdout).toContain("first:")
    const core = join(root, "dist", CORE)
    writeFileSync(core, coreChunk("other"))
    const later = new Date(Date.now() + 5_000)
    utimesSync(core, later, later)
    expect(run(root, home, ["tools"]).stdout).toContain("other:")
    expect(named(caches(cacheDir), CORE)).toHaveLength(2)
  })

  it("writes again a cache V8 rejects, and the command runs all the same", () => {
    const { root, home, cacheDir } = layout()
    run(root, home, ["tools"])
    const coreCache = join(cacheDir, named(caches(cacheDir), CORE)[0]!)
    writeFileSync(coreCache, Buffer.alloc(4096, 7))
    const before = statSync(coreCache).ino
    const result = run(root, home, ["tools"])
    expect(result.stdout).toContain("first:")
    expect(statSync(coreCache).ino).not.toBe(before)
    expect(readFileSync(coreCache).subarray(0, 64).equals(Buffer.alloc(64, 7))).toBe(false)
  })

  it("keeps one cache per command, and a command without its own starts from another's", () => {
    const { root, home, cacheDir } = layout()
    run(root, home, ["call", "read", "{}"])
    const afterRead = caches(cacheDir)
    expect(run(root, home, ["tools", "--json"]).stdout).toContain("first:")
    const both = caches(cacheDir)
    expect(named(both, ".tools.v8cache")).toHaveLength(2)
    // The read cache was used (for the core chunk), not rewritten.
    for (const name of named(afterRead, ".call-read.")) expect(both.get(name)).toBe(afterRead.get(name))
    // A tool name or command that is no name is not spelled into a file name.
    run(root, home, ["call", "../../x", "{}"])
    expect(named(caches(cacheDir), ".call-x.v8cache")).toHaveLength(2)
  })

  it("is neither read nor written where others can write the directory, or with TOOLBELT_CODE_CACHE=0", () => {
    const { root, home, cacheDir } = layout()
    expect(run(root, home, ["tools"], { TOOLBELT_CODE_CACHE: "0" }).stdout).toContain("first:")
    expect(caches(cacheDir).size).toBe(0)
    mkdirSync(cacheDir, { recursive: true })
    chmodSync(cacheDir, 0o777)
    expect(run(root, home, ["tools"]).stdout).toContain("first:")
    expect(caches(cacheDir).size).toBe(0)
  })

  it("removes caches not written for 30 days when it writes one, and leaves the others", () => {
    const { root, home, cacheDir } = layout()
    mkdirSync(cacheDir, { recursive: true, mode: 0o700 })
    const old = join(cacheDir, "cli.bundle-gone-X.cjs.00000000.00000000.tools.v8cache")
    const recent = join(cacheDir, "cli.bundle-kept-X.cjs.00000000.00000000.tools.v8cache")
    writeFileSync(old, "x")
    writeFileSync(recent, "x")
    const longAgo = new Date(Date.now() - 31 * 24 * 60 * 60 * 1000)
    utimesSync(old, longAgo, longAgo)
    run(root, home, ["tools"])
    expect(existsSync(old)).toBe(false)
    expect(existsSync(recent)).toBe(true)
  })

  it("runs chunks as themselves: strict, their own file and positions in a stack, able to import ES modules", () => {
    const { root, home } = layout()
    const thrown = run(root, home, ["throw"])
    const source = readFileSync(join(root, "dist", CORE), "utf8").split("\n")
    const line = source.findIndex((text) => text.includes('new Error("thrown in core")'))
    const column = source[line]!.indexOf("new Error") + 1
    expect(thrown.stdout).toContain(`${join(root, "dist", CORE)}:${line + 1}:${column}`)
    expect(run(root, home, ["sloppy"]).stdout).toContain("ReferenceError: undeclared is not defined")
    const esm = join(home, "module.mjs")
    writeFileSync(esm, 'export default "from an ES module"\n')
    expect(run(root, home, ["import"], { ESM_URL: `file://${esm}` }).stdout.trim()).toBe("from an ES module")
  })

  it("is not written while a long-lived command is busy, only once it is idle", async () => {
    const { root, home, cacheDir } = layout()
    const mark = join(home, "idle-from")
    const child = spawn(process.execPath, [join(root, "bin", "toolbelt.js"), "serve", "busy"], {
      env: { PATH: process.env.PATH, HOME: home, TOOLBELT_RUN: "build", MARK: mark },
      stdio: "ignore",
    })
    try {
      const deadline = Date.now() + 30_000
      while (named(caches(cacheDir), ".serve.v8cache").length < 2) {
        expect(Date.now()).toBeLessThan(deadline)
        await new Promise((done) => setTimeout(done, 100))
      }
      const idleFrom = statSync(mark).mtimeMs
      for (const name of named(caches(cacheDir), ".serve.v8cache"))
        expect(statSync(join(cacheDir, name)).mtimeMs).toBeGreaterThanOrEqual(idleFrom)
    } finally {
      child.kill("SIGKILL")
    }
  })

  it("runs again a chunk whose first run threw, as Node does, instead of handing out half of it", () => {
    const { root, home } = layout()
    expect(run(root, home, ["flaky"]).stdout).toBe("first: failed once\nagain: whole\n")
  })

  it("is written 2 s into a command that keeps running (mcp, serve)", async () => {
    const { root, home, cacheDir } = layout()
    const child = spawn(process.execPath, [join(root, "bin", "toolbelt.js"), "mcp", "wait"], {
      env: { PATH: process.env.PATH, HOME: home, TOOLBELT_RUN: "build" },
      stdio: "ignore",
    })
    try {
      const deadline = Date.now() + 20_000
      while (named(caches(cacheDir), ".mcp.v8cache").filter((name) => name.endsWith(".v8cache")).length < 2) {
        expect(Date.now()).toBeLessThan(deadline)
        await new Promise((done) => setTimeout(done, 100))
      }
      expect(child.exitCode).toBeNull()
    } finally {
      child.kill("SIGKILL")
    }
  })
})

const REAL_BIN = join(BIN_DIR, "toolbelt.js")
const REAL_BUILD = join(BIN_DIR, "..", "dist", "cli.bundle.cjs")

describe.skipIf(!existsSync(REAL_BUILD))("the real build's code cache", () => {
  it("is written by `toolbelt mcp` before its first answer, so a client that kills it then leaves one", async () => {
    const home = mkdtempSync(join(tmpdir(), "toolbelt-code-cache-mcp-"))
    dirs.push(home)
    const child = spawn(process.execPath, [REAL_BIN, "mcp", "--cwd", home], {
      env: {
        PATH: process.env.PATH,
        HOME: home,
        TOOLBELT_DATA_DIR: join(home, "data"),
        TOOLBELT_RUN: "build",
      },
      stdio: ["pipe", "pipe", "ignore"],
    })
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "0" } },
    }
    child.stdin.write(`${JSON.stringify(initialize)}\n`)
    await new Promise<void>((answered) => {
      let out = ""
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk
        if (out.includes('"id":1')) answered()
      })
    })
    child.kill("SIGKILL")
    const names = [...caches(join(home, ".cache", "toolbelt", "code-cache")).keys()]
    expect(names.some((name) => name.startsWith("cli.bundle-core-") && name.endsWith(".mcp.v8cache"))).toBe(
      true,
    )
  })
})
