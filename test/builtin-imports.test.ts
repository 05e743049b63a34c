// The CLI bundle's rewrite of built-in imports (scripts/builtin-imports.js): costly built-ins are loaded on
// first use, every use still reaches the same export, and a name the rewrite could get wrong stays eager.
// String.raw templates made ASCII (scripts/ascii-raw.js) keep their value. Then the real build: `toolbelt call
// read` from dist/ loads none of the costly built-ins and a handful of files, and every chunk is ASCII.
import { spawnSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { parseAst } from "rolldown/parseAst"
import { afterAll, describe, expect, it } from "vitest"
// @ts-expect-error: a plain JavaScript build script, without types.
import { asciiRawTemplates } from "../scripts/ascii-raw.js"
// @ts-expect-error: a plain JavaScript build script, without types.
import { rewriteBuiltinImports } from "../scripts/builtin-imports.js"

const rewrite = (code: string): string => rewriteBuiltinImports(code, (source: string) => parseAst(source))

/** Runs a rewritten module in a fresh Node; returns what it printed and the built-ins it loaded. */
function run(code: string): { out: string; loaded: string[] } {
  const probe = `const before = new Set(process.moduleLoadList);
globalThis.__loaded = () => process.moduleLoadList.filter((m) => !before.has(m) && m.startsWith("NativeModule ")).map((m) => m.slice(13));`
  const result = spawnSync(process.execPath, ["--input-type=module", "-e", `${probe}\n${code}`], {
    encoding: "utf8",
  })
  expect(result.stderr).toBe("")
  const [out = "", loaded = ""] = result.stdout.split("\n--loaded--\n")
  return { out: out.trim(), loaded: loaded.trim().split(" ").filter(Boolean) }
}

describe("rewriteBuiltinImports", () => {
  it("defers a costly built-in until a function uses it, then reads the same export", () => {
    const code = rewrite(`import { createHash } from "node:crypto";
import { join } from "node:path";
const early = globalThis.__loaded();
console.log(createHash("sha256").update(join("a", "b")).digest("hex").slice(0, 8));
console.log("\\n--loaded--\\n" + early.join(" "));`)
    expect(code).not.toMatch(/^import/m)
    const { out, loaded } = run(code)
    expect(out).toBe("c14cddc0") // sha256("a/b")
    expect(loaded).not.toContain("crypto")
  })

  it("keeps property names, object keys and labels that spell the name, and expands a shorthand property", () => {
    const code = rewrite(`import { randomUUID, createHash as hash } from "node:crypto";
const o = { randomUUID: 1, hash };
const p = { randomUUID };
randomUUID: for (;;) break randomUUID;
console.log(o.randomUUID, typeof o.hash, typeof p.randomUUID, new hash("sha1").update("x").digest("hex").length);
console.log("\\n--loaded--\\n");`)
    expect(run(code).out).toBe("1 function function 40")
  })

  it("reads namespace and default imports as the module itself", () => {
    const code = rewrite(`import * as cp from "node:child_process";
import os from "node:os";
import v8 from "node:v8";
console.log(typeof cp.spawnSync, typeof os.tmpdir, typeof v8.getHeapStatistics);
console.log("\\n--loaded--\\n");`)
    expect(code).toContain("__builtin_")
    expect(run(code).out).toBe("function function function")
  })

  it("leaves an import eager where the module also declares the name or re-exports it", () => {
    const shadowed = rewrite(`import { spawn } from "node:child_process";
function f(spawn) { return spawn }
console.log(typeof spawn, f(2));
console.log("\\n--loaded--\\n");`)
    expect(shadowed).toContain('const {spawn} = process.getBuiltinModule("node:child_process")')
    expect(run(shadowed).out).toBe("function 2")
    const exported = rewrite(`import { randomUUID } from "node:crypto";
export { randomUUID };`)
    expect(exported).toContain('const {randomUUID} = process.getBuiltinModule("node:crypto")')
  })

  it("reads a cheap built-in at once, without its ESM facade, and leaves other modules alone", () => {
    expect(rewrite(`import { readFileSync as read } from "node:fs";\nread;`)).toContain(
      'const {"readFileSync": read} = process.getBuiltinModule("node:fs");',
    )
    expect(rewrite(`import { z } from "zod";`)).toBeNull()
  })
})

describe("asciiRawTemplates", () => {
  const ascii = (code: string): string | null => asciiRawTemplates(code, (source: string) => parseAst(source))

  it("moves a String.raw template's other characters into substitutions: same value, ASCII source", () => {
    const code = `const a = "\u00e9"; export const r = String.raw\`^x[\u00d7\u25cf][ \\t]\${"y"}z\u{1f600}\``
    const out = ascii(code)!
    // The template is ASCII; a string literal is left to the bundler, which escapes it.
    expect(out.slice(out.indexOf("String.raw"))).not.toMatch(/[\u0080-\uffff]/)
    expect(out).toContain('const a = "\u00e9"')
    const value = (source: string) => run(`${source}\nconsole.log(JSON.stringify(r))`).out
    expect(value(out)).toBe(value(code))
    expect(JSON.parse(value(out))).toBe("^x[\u00d7\u25cf][ \\t]yz\u{1f600}")
  })

  it("leaves code without such a template alone", () => {
    expect(ascii("export const s = String.raw`a\\b`")).toBeNull()
    expect(ascii('export const s = `\u00d7` + "\u00d7"')).toBeNull()
  })
})

const root = fileURLToPath(new URL("..", import.meta.url))
const bundle = join(root, "dist", "cli.bundle.cjs")

/** `toolbelt call read f.txt` (or `args`) from the build in `dir`, Node started with `flags` first. */
function callRead(dir: string, flags: string[], args = ["call", "read", '{"filePath":"f.txt"}']) {
  return spawnSync(process.execPath, [...flags, join(root, "bin", "toolbelt.js"), ...args, "--cwd", dir], {
    encoding: "utf8",
    env: { PATH: process.env.PATH, HOME: dir, TOOLBELT_DATA_DIR: join(dir, "data"), TOOLBELT_RUN: "build" },
  })
}

/** The built-in modules Node loaded after the preload `loaded.cjs` in `dir` ran. */
async function loadedModules(dir: string, args?: string[]): Promise<{ stdout: string; loaded: string[] }> {
  const preload = join(dir, "loaded.cjs")
  await writeFile(
    preload,
    `const before = new Set(process.moduleLoadList);
process.on("exit", () => {
  const loaded = process.moduleLoadList.filter((m) => !before.has(m)).join(",");
  // Worker threads run this preload too (the token-count worker); their lists are not the command's.
  if (require("node:worker_threads").isMainThread) process.stderr.write("LOADED " + loaded + "\\n");
});`,
  )
  const result = callRead(dir, ["-r", preload], args)
  const loaded = /LOADED (.*)/.exec(result.stderr)?.[1]?.split(",") ?? []
  expect(loaded.length).toBeGreaterThan(0)
  return { stdout: result.stdout, loaded }
}

describe.skipIf(!existsSync(bundle))("the CLI build's start-up", () => {
  let dir: string | undefined
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it("loads no costly built-in for `call read`", async () => {
    dir = await mkdtemp(join(tmpdir(), "toolbelt-builtins-"))
    await writeFile(join(dir, "f.txt"), "abc\n")
    const { stdout, loaded } = await loadedModules(dir)
    expect(stdout).toContain("1: abc")
    // Its hashes are small enough for JavaScript (platform/util/sha256.ts), its random bytes come from
    // /dev/urandom, and its output goes straight to the piped stdout: no node:crypto (~10 ms), no stream
    // made for stdin, stdout or stderr (a pipe's is a net.Socket: ~6 ms with the stream modules).
    for (const costly of [
      "crypto",
      "net",
      "stream",
      "tty",
      "child_process",
      "worker_threads",
      "v8",
      "dns/promises",
      "dgram",
      "readline/promises",
    ])
      expect(loaded, costly).not.toContain(`NativeModule ${costly}`)
  })

  it("reads config, tool and agent folders at start-up without loading node:fs/promises", async () => {
    dir ??= await mkdtemp(join(tmpdir(), "toolbelt-builtins-"))
    // Loading it (and the thread pool its first call starts) cost ~10 ms of `toolbelt tools`. The first
    // run counts the tools' tokens and writes the counts' file; the second finds them.
    await loadedModules(dir, ["tools"])
    const { stdout, loaded } = await loadedModules(dir, ["tools"])
    expect(stdout).toContain("read")
    expect(loaded).not.toContain("NativeModule fs/promises")
  })

  it("is ASCII in every chunk, so V8 keeps each source one byte per character", () => {
    const chunks = readdirSync(join(root, "dist")).filter((name) => name.startsWith("cli.bundle"))
    expect(chunks.length).toBeGreaterThan(1)
    for (const name of chunks)
      expect(readFileSync(join(root, "dist", name), "latin1").search(/[\u0080-\uffff]/), name).toBe(-1)
  })

  it("evaluates every chunk on its own, as plain CommonJS", () => {
    // A chunk's top-level code (the bundler's intro included) runs once a command first needs it: a
    // defect there shows only in that command (webfetch's turndown chunk shadowed \`process\`).
    const script = `const { readdirSync } = require("node:fs"); const { join } = require("node:path");
for (const name of readdirSync(process.argv[1]).filter((name) => /^cli\\.bundle-.*\\.cjs$/.test(name)))
  try { require(join(process.argv[1], name)) } catch (error) { console.log("FAILED " + name + ": " + error) }
console.log("EVALUATED")`
    const result = spawnSync(process.execPath, ["-e", script, join(root, "dist"), "--help"], {
      encoding: "utf8",
    })
    expect(result.stdout).toContain("EVALUATED")
    expect(result.stdout).not.toContain("FAILED")
  })

  it("is CommonJS in strict mode in every chunk, as the ES modules it bundles were", () => {
    const chunks = readdirSync(join(root, "dist")).filter((name) => name.startsWith("cli.bundle"))
    for (const name of chunks) {
      expect(name.endsWith(".cjs"), name).toBe(true)
      expect(readFileSync(join(root, "dist", name), "latin1").startsWith('"use strict";'), name).toBe(true)
    }
  })

  it("loads a handful of files for `call read`: the core chunk, not one per shared part", async () => {
    dir ??= await mkdtemp(join(tmpdir(), "toolbelt-builtins-"))
    await writeFile(join(dir, "f.txt"), "abc\n")
    // bin/toolbelt.js compiles each chunk it loads with vm.Script: count those.
    const preload = join(dir, "chunks.cjs")
    await writeFile(
      preload,
      `const vm = require("node:vm")
const files = []
const Script = vm.Script
vm.Script = class extends Script { constructor(code, options) { super(code, options); if (options?.filename) files.push(options.filename.slice(options.filename.lastIndexOf("/") + 1)) } }
process.on("exit", () => process.stderr.write("FILES " + files.join(",") + "\\n"))`,
    )
    const result = callRead(dir, ["-r", preload])
    expect(result.stdout).toContain("1: abc")
    const files = /FILES (.*)/.exec(result.stderr)?.[1]?.split(",") ?? []
    expect(
      files.some((name) => name.startsWith("cli.bundle-core-")),
      files.join(" "),
    ).toBe(true)
    // The entry, the call command, core, and the few modules the entry and core share.
    expect(files.length, files.join(" ")).toBeLessThanOrEqual(6)
  })
})
