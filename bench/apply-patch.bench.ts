// apply_patch's pure core: parse + plan of a patch with 50 hunks over 10 generated files of 2,000
// lines each (no file I/O), in ms. Run: node bench/apply-patch.bench.ts
import { pathToFileURL } from "node:url"
import { parsePatch } from "../src/tools/apply_patch/parse.ts"
import { planPatch } from "../src/tools/apply_patch/plan.ts"
import { median } from "./lib/measure.ts"

const FILES = 10
const LINES = 2_000
const HUNKS_PER_FILE = 5
const ROUNDS = 200

/** A TypeScript-looking file whose braces and blank lines repeat, as real code does. */
function generateFile(f: number): string[] {
  const out: string[] = []
  for (let i = 0; out.length < LINES; i++) {
    out.push(`export function handler${f}_${i}(input: Input${i}): Output {`)
    out.push(`  const value = compute(input.field${i}, ${i})`)
    out.push("  if (!value) {")
    out.push(`    throw new Error("missing value ${i}")`)
    out.push("  }")
    out.push("  return value")
    out.push("}")
    out.push("")
  }
  return out.slice(0, LINES)
}

/**
 * The files and a patch changing each in five places (3 lines of context around each change).
 * With `sloppy`, the patch's context lines carry trailing spaces, so every chunk needs the second
 * matching pass.
 */
export function generate(sloppy = false): { files: Map<string, string>; patch: string } {
  const files = new Map<string, string>()
  const rows = ["*** Begin Patch"]
  const pad = sloppy ? "  " : ""
  for (let f = 0; f < FILES; f++) {
    const path = `src/module${f}/handlers.ts`
    const lines = generateFile(f)
    files.set(path, `${lines.join("\n")}\n`)
    rows.push(`*** Update File: ${path}`)
    for (let h = 0; h < HUNKS_PER_FILE; h++) {
      // The `throw` line of a function spread over the file; half the hunks name the function
      // in their @@ header, the other half rely on three lines of context alone.
      const start = Math.floor(((h + 0.5) * LINES) / HUNKS_PER_FILE / 8) * 8
      const at = start + 3
      if (h % 2 === 0) rows.push(`@@ ${lines[start]}`)
      else rows.push("@@", ` ${lines[start]}${pad}`)
      for (const line of lines.slice(start + 1, at)) rows.push(` ${line}${pad}`)
      rows.push(`-${lines[at]}`)
      rows.push(`+${lines[at]!.replace("new Error(", "new MissingValue(")}`)
      rows.push(`+    log("hunk ${h}")`)
      for (const line of lines.slice(at + 1, at + 4)) rows.push(` ${line}${pad}`)
    }
  }
  rows.push("*** End Patch")
  return { files, patch: rows.join("\n") }
}

function once(
  files: Map<string, string>,
  patch: string,
): { parseMs: number; planMs: number; changes: number } {
  const t0 = process.hrtime.bigint()
  const parsed = parsePatch(patch)
  const t1 = process.hrtime.bigint()
  if (!parsed.ok) throw new Error(parsed.message)
  const planned = planPatch(parsed.hunks, (path) => files.get(path))
  const t2 = process.hrtime.bigint()
  if (!planned.ok) throw new Error(planned.message)
  return { parseMs: Number(t1 - t0) / 1e6, planMs: Number(t2 - t1) / 1e6, changes: planned.changes.length }
}

function verify(files: Map<string, string>, patch: string): void {
  const parsed = parsePatch(patch)
  if (!parsed.ok) throw new Error(parsed.message)
  const hunks = parsed.hunks.reduce((sum, hunk) => sum + (hunk.type === "update" ? hunk.chunks.length : 0), 0)
  if (hunks !== FILES * HUNKS_PER_FILE)
    throw new Error(`expected ${FILES * HUNKS_PER_FILE} hunks, got ${hunks}`)
  const planned = planPatch(parsed.hunks, (path) => files.get(path))
  if (!planned.ok) throw new Error(planned.message)
  for (const change of planned.changes) {
    const fast = change.newContent.split("new MissingValue(").length - 1
    if (
      fast !== HUNKS_PER_FILE ||
      change.additions !== 2 * HUNKS_PER_FILE ||
      change.deletions !== HUNKS_PER_FILE
    ) {
      throw new Error(
        `wrong result for ${change.path}: ${fast} changes, +${change.additions} -${change.deletions}`,
      )
    }
  }
}

export async function run(): Promise<Record<string, number>> {
  const exact = generate()
  const sloppy = generate(true)
  verify(exact.files, exact.patch)
  verify(sloppy.files, sloppy.patch)

  const first = once(exact.files, exact.patch)
  for (let i = 0; i < 10; i++) once(exact.files, exact.patch)
  const parse: number[] = []
  const plan: number[] = []
  const total: number[] = []
  for (let i = 0; i < ROUNDS; i++) {
    const r = once(exact.files, exact.patch)
    parse.push(r.parseMs)
    plan.push(r.planMs)
    total.push(r.parseMs + r.planMs)
  }
  const fuzzy: number[] = []
  for (let i = 0; i < ROUNDS; i++) {
    const r = once(sloppy.files, sloppy.patch)
    fuzzy.push(r.parseMs + r.planMs)
  }
  return {
    files: FILES,
    lines_per_file: LINES,
    hunks: FILES * HUNKS_PER_FILE,
    patch_lines: exact.patch.split("\n").length,
    first_run_ms: first.parseMs + first.planMs,
    parse_median_ms: median(parse),
    plan_median_ms: median(plan),
    parse_plan_median_ms: median(total),
    trailing_ws_median_ms: median(fuzzy),
  }
}

export function report(r: Record<string, number>): void {
  console.log(
    `apply_patch parse + plan, ${r.hunks} hunks over ${r.files} files of ${r.lines_per_file} lines (${r.patch_lines}-line patch)`,
  )
  console.log(`  first run (cold)                 ${r.first_run_ms!.toFixed(2)} ms`)
  console.log(`  parse  median                    ${r.parse_median_ms!.toFixed(3)} ms`)
  console.log(`  plan   median                    ${r.plan_median_ms!.toFixed(3)} ms`)
  console.log(`  parse + plan median              ${r.parse_plan_median_ms!.toFixed(3)} ms`)
  console.log(`  parse + plan, trailing-ws pass   ${r.trailing_ws_median_ms!.toFixed(3)} ms`)
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) report(await run())
