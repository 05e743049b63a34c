// Language servers after an edit, on a generated 200-file TypeScript project (a chain of modules, each
// importing the one before it):
// - edit to diagnostics: a file is changed on disk, then the pool is asked for its diagnostics (what
//   edit/write/apply_patch do after writing), with typescript-language-server (tsserver 5.9) and with
//   TypeScript 7's native `tsc --lsp`. Cold: the first edit, the server's start and the project's load
//   included. Warm: later edits, alternately adding a type error and fixing it (median); each answer is
//   checked (the error present, then gone).
// - no server applies: the edit tool on a .txt file through settlement, with the language servers in its
//   services and without (median); and the pool's own answer for such a file.
// Run: node bench/lsp.bench.ts
import { symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { makeProject, REPO, TEST_LSP_CONFIG, testEnv } from "../src/adapters/lsp/fixtures/lsp-project.ts"
import { LanguageServerPool } from "../src/adapters/lsp/language-server-pool.ts"
import { EditTool } from "../src/tools/edit/edit.ts"
import { createHarness } from "../src/tools/kit/fixtures/harness.ts"
import { median } from "./lib/measure.ts"

const FILES = 200
const EDITED = 100
const WARM_ROUNDS = 10
const EDIT_ROUNDS = 40

/** Module `i` of the chain: a function using the previous module's, a class, a few constants. */
function moduleSource(i: number, broken = false): string {
  const lines = i > 0 ? [`import { Thing${i - 1}, value${i - 1} } from "./mod${i - 1}.js"`, ""] : []
  const previous = i > 0 ? `value${i - 1}(x) + ` : ""
  lines.push(
    `export function value${i}(x: number): number {`,
    `  return ${previous}${i} * x`,
    "}",
    "",
    `export class Thing${i} {`,
    `  readonly items: number[] = []`,
    `  add(n: number): this {`,
    `    this.items.push(value${i}(n))`,
    "    return this",
    "  }",
    "  get total(): number {",
    "    return this.items.reduce((sum, n) => sum + n, 0)",
    "  }",
    "}",
    "",
    `export const start${i}: number = value${i}(1)`,
    i > 0 ? `export const previous${i} = new Thing${i - 1}().add(${i}).total` : "",
    broken
      ? `export const broken${i}: string = value${i}(2)`
      : `export const fine${i}: number = value${i}(2)`,
    "",
  )
  return lines.join("\n")
}

function projectFiles(): Record<string, string> {
  const files: Record<string, string> = {
    "package.json": '{"name":"bench","type":"module"}',
    "tsconfig.json": JSON.stringify({
      compilerOptions: { strict: true, target: "es2022", module: "nodenext", noEmit: true },
    }),
  }
  for (let i = 0; i < FILES; i++) files[`src/mod${i}.ts`] = moduleSource(i)
  return files
}

/** Cold and warm edit-to-diagnostics times for one server setup, every answer checked. */
async function editToDiagnostics(options: { native: boolean }): Promise<{ cold: number; warm: number }> {
  const project = makeProject(projectFiles())
  if (options.native) symlinkSync(join(REPO, "node_modules"), join(project.dir, "node_modules"))
  const pool = new LanguageServerPool({
    directory: project.dir,
    config: options.native ? undefined : TEST_LSP_CONFIG,
    env: testEnv().env,
    diagnosticsWaitMs: 120_000,
  })
  const file = join(project.dir, "src", `mod${EDITED}.ts`)
  const edit = async (broken: boolean) => {
    writeFileSync(file, moduleSource(EDITED, broken))
    const start = performance.now()
    const { files } = await pool.diagnostics([file])
    const ms = performance.now() - start
    const errors = (files[file] ?? []).filter((d) => d.severity === 1).length
    if (errors !== (broken ? 1 : 0)) throw new Error(`expected ${broken ? 1 : 0} errors, got ${errors}`)
    return ms
  }
  try {
    const cold = await edit(true)
    const warm: number[] = []
    for (let round = 0; round < WARM_ROUNDS; round++) warm.push(await edit(round % 2 !== 0))
    return { cold, warm: median(warm) }
  } finally {
    await pool.close()
    project.remove()
  }
}

/** The edit tool on a file no server handles: with the language servers in its services and without. */
async function noServerLatency(): Promise<{ without: number; with: number; pool_us: number }> {
  const h = await createHarness({ edit: EditTool })
  const pool = new LanguageServerPool({ directory: h.directory, config: TEST_LSP_CONFIG, env: testEnv().env })
  const file = h.path("notes.txt")
  // The two setups take turns, edit by edit, so drift (caches, GC, the disk) falls on both alike.
  const times: Record<"without" | "with", number[]> = { without: [], with: [] }
  writeFileSync(file, "alpha\n")
  try {
    for (let round = 0; round < 2 * (EDIT_ROUNDS + 3); round++) {
      const setup = round % 2 === 0 ? "without" : "with"
      const [from, to] = round % 2 === 0 ? ["alpha", "beta"] : ["beta", "alpha"]
      const extra = setup === "with" ? { requireRead: false, languageServers: pool } : { requireRead: false }
      const start = performance.now()
      const result = await h.call("edit", { filePath: file, oldString: from, newString: to }, { extra })
      if (result.status !== "completed") throw new Error(`edit failed: ${result.error}`)
      if (round >= 6) times[setup].push(performance.now() - start)
    }
    const without = median(times.without)
    const withServers = median(times.with)
    const samples: number[] = []
    for (let i = 0; i < 1000; i++) {
      const start = performance.now()
      await pool.diagnostics([file])
      samples.push((performance.now() - start) * 1000)
    }
    return { without, with: withServers, pool_us: median(samples) }
  } finally {
    await pool.close()
    await h.close()
  }
}

export async function run(): Promise<Record<string, number>> {
  const tsls = await editToDiagnostics({ native: false })
  const native = await editToDiagnostics({ native: true })
  const none = await noServerLatency()
  return {
    files: FILES,
    tsls_cold_ms: tsls.cold,
    tsls_warm_ms: tsls.warm,
    native_cold_ms: native.cold,
    native_warm_ms: native.warm,
    edit_without_servers_ms: none.without,
    edit_with_servers_no_match_ms: none.with,
    pool_no_match_us: none.pool_us,
  }
}

export function report(r: Record<string, number>): void {
  const ms = (value: number | undefined) => `${value!.toFixed(value! < 10 ? 2 : 0)} ms`
  console.log(`edit to diagnostics, ${r.files}-file TypeScript project (one module of a chain changed)`)
  console.log(
    `  typescript-language-server (tsserver 5.9)  cold ${ms(r.tsls_cold_ms)}, warm ${ms(r.tsls_warm_ms)} (median)`,
  )
  console.log(
    `  TypeScript 7 tsc --lsp (pulled)            cold ${ms(r.native_cold_ms)}, warm ${ms(r.native_warm_ms)} (median)`,
  )
  console.log("edit of a .txt file (no server applies), through settle, median")
  console.log(`  without language servers                   ${ms(r.edit_without_servers_ms)}`)
  console.log(`  with language servers                      ${ms(r.edit_with_servers_no_match_ms)}`)
  console.log(`  the pool's answer alone                    ${r.pool_no_match_us!.toFixed(1)} µs`)
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) report(await run())
