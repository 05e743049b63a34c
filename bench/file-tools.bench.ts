// The edit and apply_patch tools end to end, through settlement (decode, permission ask, lock, read,
// ledger check, match, diff, atomic write with fsync, ledger stamp, bounding), on a temp project:
// - edit: a 5-line edit near the end of a generated 20,000-line file, exact and with 4-space
//   indentation against the file's tabs (fuzzy + re-indentation), each call undone by the next;
// - apply_patch: one patch with 50 hunks over 10 files of 2,000 lines (5 chunks per file), applied
//   and reverted in turns.
// Medians in ms. Run: node bench/file-tools.bench.ts
import { mkdir, readFile, writeFile } from "node:fs/promises"
import { pathToFileURL } from "node:url"
import { ApplyPatchTool } from "../src/tools/apply_patch/apply_patch.ts"
import { EditTool } from "../src/tools/edit/edit.ts"
import { createHarness, type Harness } from "../src/tools/kit/fixtures/harness.ts"
import { generateFile } from "./edit.bench.ts"

const EDIT_LINES = 20_000
const EDIT_ROUNDS = 30
const FILES = 10
const FILE_LINES = 2_000
const HUNKS_PER_FILE = 5
const PATCH_ROUNDS = 20

async function median(rounds: number, call: (round: number) => Promise<void>): Promise<number> {
  for (let i = 0; i < 3; i++) await call(i)
  const samples: number[] = []
  for (let i = 0; i < rounds; i++) {
    const start = process.hrtime.bigint()
    await call(i + 3)
    samples.push(Number(process.hrtime.bigint() - start) / 1e6)
  }
  samples.sort((a, b) => a - b)
  return samples[Math.floor(samples.length / 2)]!
}

async function expectCompleted(h: Harness, tool: string, input: unknown): Promise<void> {
  const result = await h.call(tool, input)
  if (result.status !== "completed") throw new Error(`${tool} failed: ${result.error}`)
}

async function benchEdit(h: Harness): Promise<{ exact: number; fuzzy: number; bytes: number }> {
  const lines = generateFile(EDIT_LINES)
  const content = `${lines.join("\n")}\n`
  await writeFile(h.path("big.ts"), content)
  const at = lines.findLastIndex(
    (line, i) => line.startsWith("\t\tif (!options.force") && i + 5 < lines.length,
  )
  const before = lines.slice(at, at + 5).join("\n")
  const after = before.replace("this.cache.get(id)!", "this.cache.get(id) ?? 0")
  const spaced = (text: string) => text.replaceAll("\t", "    ")

  // Even rounds apply, odd rounds undo: every call is a real edit of the same size.
  const exact = await median(EDIT_ROUNDS, (round) =>
    expectCompleted(h, "edit", {
      filePath: "big.ts",
      oldString: round % 2 === 0 ? before : after,
      newString: round % 2 === 0 ? after : before,
    }),
  )
  await writeFile(h.path("big.ts"), content)
  h.ledger.clear("ses_test")
  const fuzzy = await median(EDIT_ROUNDS, (round) =>
    expectCompleted(h, "edit", {
      filePath: "big.ts",
      oldString: spaced(round % 2 === 0 ? before : after),
      newString: spaced(round % 2 === 0 ? after : before),
    }),
  )
  const final = await readFile(h.path("big.ts"), "utf8")
  if (final !== content && final !== content.replace(before, after))
    throw new Error("the edits corrupted the file")
  return { exact, fuzzy, bytes: Buffer.byteLength(content) }
}

function patchFile(f: number): string[] {
  const out: string[] = []
  for (let i = 0; out.length < FILE_LINES; i++) {
    out.push(`export function handler${f}_${i}(input: Input): Output {`)
    out.push(`  const value = compute(input.field, ${i})`)
    out.push("  if (!value) {")
    out.push(`    throw new Error("missing value ${i}")`)
    out.push("  }")
    out.push("  return { value }")
    out.push("}")
    out.push("")
  }
  return out.slice(0, FILE_LINES)
}

/** The patch changing (or, reversed, restoring) one `return` line in 5 places of each of the 10 files. */
function makePatch(files: string[][], reverse: boolean): string {
  const out = ["*** Begin Patch"]
  for (const [f, lines] of files.entries()) {
    out.push(`*** Update File: src/file${f}.ts`)
    for (let k = 0; k < HUNKS_PER_FILE; k++) {
      const at = Math.floor(((k + 0.5) * lines.length) / HUNKS_PER_FILE / 8) * 8 + 5
      const original = lines[at]!
      const changed = original.replace("return { value }", "return { value, cached: false }")
      out.push("@@")
      for (const line of lines.slice(at - 3, at)) out.push(` ${line}`)
      out.push(`-${reverse ? changed : original}`, `+${reverse ? original : changed}`)
      for (const line of lines.slice(at + 1, at + 4)) out.push(` ${line}`)
    }
  }
  out.push("*** End Patch")
  return out.join("\n")
}

async function benchPatch(h: Harness): Promise<number> {
  const files = Array.from({ length: FILES }, (_, f) => patchFile(f))
  await mkdir(h.path("src"))
  for (const [f, lines] of files.entries())
    await writeFile(h.path(`src/file${f}.ts`), `${lines.join("\n")}\n`)
  const forward = makePatch(files, false)
  const backward = makePatch(files, true)
  return median(PATCH_ROUNDS, (round) =>
    expectCompleted(h, "apply_patch", { patchText: round % 2 === 0 ? forward : backward }),
  )
}

export async function run(): Promise<Record<string, number>> {
  const h = await createHarness({ edit: EditTool, apply_patch: ApplyPatchTool })
  try {
    const edit = await benchEdit(h)
    const patch = await benchPatch(h)
    return {
      edit_lines: EDIT_LINES,
      edit_bytes: edit.bytes,
      edit_exact_ms: edit.exact,
      edit_fuzzy_indentation_ms: edit.fuzzy,
      patch_files: FILES,
      patch_hunks: FILES * HUNKS_PER_FILE,
      apply_patch_ms: patch,
    }
  } finally {
    await h.close()
  }
}

export function report(r: Record<string, number>): void {
  console.log(`file tools through settle (ask, lock, read, match, diff, atomic write with fsync), median`)
  console.log(
    `  edit, 5 lines near the end of a ${r.edit_lines}-line file (${(r.edit_bytes! / 1024).toFixed(0)} KiB)   ${r.edit_exact_ms!.toFixed(2)} ms`,
  )
  console.log(
    `  same edit, 4 spaces for the file's tabs (fuzzy)             ${r.edit_fuzzy_indentation_ms!.toFixed(2)} ms`,
  )
  console.log(
    `  apply_patch, ${r.patch_hunks} hunks over ${r.patch_files} files of ${FILE_LINES} lines               ${r.apply_patch_ms!.toFixed(2)} ms`,
  )
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) report(await run())
