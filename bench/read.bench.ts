// The last page of a 1 GiB file: the reader in platform/fs against `tail -n 2000` of it, with peak memory.
// Run: node bench/read.bench.ts
//
// 1. Write a 1 GiB log (~14 M lines, some multi-byte characters) to a temp dir, in 1 MiB blocks, from a
//    child process (so its memory does not count here).
// 2. Time `tail -n 2000 <file> > /dev/null` inside bash (EPOCHREALTIME around it, so Node's spawn cost
//    is not counted), taking turns with steps 4 and 5; medians of 15 runs.
// 3. Cold: the first `readLines` (page 1 with the total line count) scans the whole file and stores its
//    line index; then the same with `hash: true` (what the read tool records in the ledger).
// 4. Warm: `readLines({offset: total - 1999, limit: 2000})` seeks through the index.
// 5. `readLastLines(path, 2000)` reads backwards from the end like tail (no index needed).
// 6. Steps 3 to 5 again in a fresh Node running type-stripped JavaScript copies of the modules (as the
//    built package runs), whose maxRSS is the figure for the 64 MB goal: in this process the TypeScript
//    loader alone takes 20-30 MB.
// Every page is checked against tail's output. maxRSS is this process's peak: Node itself (with its
// TypeScript loader, ~60 MiB) plus the reading; on Linux it is also reset (/proc/self/clear_refs) just
// before the reading starts.
import { execFileSync } from "node:child_process"
import { mkdir, mkdtemp, open, readFile, rm, writeFile } from "node:fs/promises"
import { stripTypeScriptTypes } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join, relative } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { readLastLines } from "../src/platform/fs/read-last-lines.ts"
import { clearLineIndexCache, readLines } from "../src/platform/fs/read-lines.ts"
import { median, resetPeakRss, timeCommand } from "./lib/measure.ts"

const MiB = 1024 * 1024
const FILE_MIB = 1024
const PAGE = 2000
const RUNS = 15

export async function run(): Promise<Record<string, number>> {
  const dir = await mkdtemp(join(tmpdir(), "toolbelt-bench-read-"))
  const path = join(dir, "big.log")
  try {
    // Written by a child process, so this process's peak RSS is the reading's alone.
    const generateStart = performance.now()
    const expectedLines = Number(
      execFileSync(process.execPath, [fileURLToPath(import.meta.url), "--generate", path], {
        encoding: "utf8",
      }),
    )
    const generateMs = performance.now() - generateStart

    const tailText = execFileSync("tail", ["-n", String(PAGE), path], {
      encoding: "utf8",
      maxBuffer: 64 * MiB,
    })
    const tailLines = tailText.split("\n").slice(0, -1)
    const wcMs = median(timeCommand(`wc -l "${path}"`, 3))

    const peakReset = resetPeakRss()
    const rssBeforeMiB = process.memoryUsage.rss() / MiB

    clearLineIndexCache()
    let start = performance.now()
    const first = await readLines(path, { offset: 1, limit: PAGE })
    const coldMs = performance.now() - start
    const total = first.totalLines ?? -1
    if (total !== expectedLines) throw new Error(`counted ${total} lines, expected ${expectedLines}`)

    clearLineIndexCache()
    start = performance.now()
    const hashed = await readLines(path, { offset: 1, limit: PAGE, hash: true })
    const coldHashMs = performance.now() - start
    if (!hashed.hash) throw new Error("no hash")

    // tail, the indexed page and the backward read take turns, so they share the machine's noise.
    const tail: number[] = []
    const warm: number[] = []
    const backwards: number[] = []
    for (let i = 0; i < RUNS; i++) {
      tail.push(...timeTail(path, 1))
      start = performance.now()
      const page = await readLines(path, { offset: total - PAGE + 1, limit: PAGE, maxBytes: Infinity })
      warm.push(performance.now() - start)
      check("readLines (indexed)", page.lines, tailLines)
      if (page.lastLine !== total || page.more) throw new Error("the indexed page is not the last one")

      start = performance.now()
      const last = await readLastLines(path, PAGE)
      backwards.push(performance.now() - start)
      check("readLastLines", last.lines, tailLines)
    }

    const tailMs = median(tail)
    const warmMs = median(warm)
    const lastLinesMs = median(backwards)
    const js = await measureAsJavaScript(dir, path, total)
    return {
      file_mib: FILE_MIB,
      lines: total,
      generate_ms: generateMs,
      tail_ms: tailMs,
      wc_l_ms: wcMs,
      cold_first_page_ms: coldMs,
      cold_first_page_hash_ms: coldHashMs,
      warm_last_page_ms: warmMs,
      warm_ratio_to_tail: warmMs / tailMs,
      read_last_lines_ms: lastLinesMs,
      read_last_lines_ratio_to_tail: lastLinesMs / tailMs,
      rss_before_mib: rssBeforeMiB,
      peak_rss_mib: process.resourceUsage().maxRSS / 1024,
      peak_rss_kb: process.resourceUsage().maxRSS,
      peak_over_baseline_mib: process.resourceUsage().maxRSS / 1024 - rssBeforeMiB,
      peak_reset_ok: peakReset ? 1 : 0,
      js_baseline_rss_mib: js.baselineKb / 1024,
      js_peak_rss_mib: js.maxRssKb / 1024,
      js_peak_rss_kb: js.maxRssKb,
      js_cold_first_page_ms: js.coldMs,
      js_warm_last_page_ms: median(js.warm),
      js_read_last_lines_ms: median(js.last),
      js_last_page_only_ms: js.lastPageOnly.ms,
      js_last_page_only_rss_mib: js.lastPageOnly.maxRssKb / 1024,
      js_bare_node_rss_mib: js.bareKb / 1024,
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

interface JavaScriptRun {
  /** A fresh Node that only reads the last page, cold (it must count its way there). */
  lastPageOnly: { ms: number; maxRssKb: number }
  /** maxRSS of a Node that does nothing. */
  bareKb: number
  baselineKb: number
  maxRssKb: number
  coldMs: number
  warm: number[]
  last: number[]
}

/**
 * The same reads in a fresh Node running plain JavaScript (type-stripped copies of
 * src/platform/fs/read-lines.ts, read-last-lines.ts and their imports), as the built package runs: this
 * process's RSS includes the TypeScript loader, which is not part of reading.
 */
async function measureAsJavaScript(dir: string, path: string, total: number): Promise<JavaScriptRun> {
  const out = join(dir, "js")
  const src = fileURLToPath(new URL("../src/", import.meta.url))
  // Module paths relative to src/, copied with their folders so relative imports still resolve.
  const pending = ["platform/fs/read-lines.ts", "platform/fs/read-last-lines.ts"]
  const done = new Set<string>()
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (done.has(name)) continue
    done.add(name)
    const source = await readFile(join(src, name), "utf8")
    for (const [, imported] of source.matchAll(/from "(\.{1,2}\/[\w./-]+)\.ts"/g))
      pending.push(relative(src, join(src, dirname(name), `${imported!}.ts`)))
    const js = quietly(() => stripTypeScriptTypes(source)).replaceAll(
      /from "(\.{1,2}\/[\w./-]+)\.ts"/g,
      'from "$1.js"',
    )
    await mkdir(join(out, dirname(name)), { recursive: true })
    await writeFile(join(out, name.replace(/\.ts$/, ".js")), js)
  }
  await writeFile(join(out, "measure.mjs"), MEASURE_SCRIPT)
  await writeFile(join(out, "last-page.mjs"), LAST_PAGE_SCRIPT)
  const output = execFileSync(
    process.execPath,
    [join(out, "measure.mjs"), path, String(PAGE), String(RUNS)],
    {
      encoding: "utf8",
    },
  )
  const lastPageOnly = JSON.parse(
    execFileSync(process.execPath, [join(out, "last-page.mjs"), path, String(total - PAGE + 1)], {
      encoding: "utf8",
    }),
  ) as JavaScriptRun["lastPageOnly"]
  const bareKb = Number(
    execFileSync(process.execPath, ["-e", "console.log(process.resourceUsage().maxRSS)"], {
      encoding: "utf8",
    }),
  )
  return { ...(JSON.parse(output) as JavaScriptRun), lastPageOnly, bareKb }
}

/** What a one-shot process does: read the last page of a file it has never seen, and exit. */
const LAST_PAGE_SCRIPT = `
import { readLines } from "./platform/fs/read-lines.js"
const [path, offsetText] = process.argv.slice(2)
const start = performance.now()
const page = await readLines(path, { offset: Number(offsetText), limit: 2000, maxBytes: Infinity })
const ms = performance.now() - start
if (page.more || page.lines.length !== 2000) throw new Error("not the last page")
console.log(JSON.stringify({ ms, maxRssKb: process.resourceUsage().maxRSS }))
`

const MEASURE_SCRIPT = `
import { readLastLines } from "./platform/fs/read-last-lines.js"
import { readLines } from "./platform/fs/read-lines.js"
const [path, pageText, runsText] = process.argv.slice(2)
const page = Number(pageText)
const baselineKb = process.memoryUsage.rss() / 1024
let start = performance.now()
const first = await readLines(path, { offset: 1, limit: page })
const coldMs = performance.now() - start
const warm = []
const last = []
for (let i = 0; i < Number(runsText); i++) {
  start = performance.now()
  await readLines(path, { offset: first.totalLines - page + 1, limit: page, maxBytes: Infinity })
  warm.push(performance.now() - start)
  start = performance.now()
  await readLastLines(path, page)
  last.push(performance.now() - start)
}
console.log(JSON.stringify({ baselineKb, maxRssKb: process.resourceUsage().maxRSS, coldMs, warm, last }))
`

/** Runs `fn` without printing the experimental-feature warning it triggers. */
function quietly<T>(fn: () => T): T {
  const emit = process.emitWarning
  process.emitWarning = () => {}
  try {
    return fn()
  } finally {
    process.emitWarning = emit
  }
}

/** Writes `mib` MiB of log lines, cycling through a few distinct 1 MiB blocks; returns the line count. */
async function generate(path: string, mib: number): Promise<number> {
  const blocks = Array.from({ length: 7 }, (_, variant) => block(variant))
  const handle = await open(path, "w")
  let lines = 0
  try {
    for (let i = 0; i < mib; i++) {
      const { bytes, count } = blocks[i % blocks.length]!
      await handle.write(bytes)
      lines += count
    }
  } finally {
    await handle.close()
  }
  return lines
}

/** About 1 MiB of whole lines. */
function block(variant: number): { bytes: Buffer; count: number } {
  const levels = ["INFO ", "DEBUG", "WARN ", "ERROR"]
  const lines: string[] = []
  let size = 0
  for (let i = 0; size < MiB - 200; i++) {
    const n = variant * 100_000 + i
    const note = n % 7 === 0 ? " détail über 日本語" : ""
    const line = `2026-11-22T02:44:${String(n % 60).padStart(2, "0")}.${String(n % 1000).padStart(3, "0")}Z ${levels[n % 4]} worker-${n % 16} GET /api/items/${n} 200 ${n % 97}ms${note}\n`
    lines.push(line)
    size += Buffer.byteLength(line)
  }
  return { bytes: Buffer.from(lines.join("")), count: lines.length }
}

function check(name: string, lines: string[], expected: string[]): void {
  if (lines.length !== expected.length || lines.some((line, i) => line !== expected[i]))
    throw new Error(`${name} returned different lines than tail`)
}

function timeTail(path: string, runs: number): number[] {
  return timeCommand(`tail -n ${PAGE} "${path}" > /dev/null`, runs)
}

function print(metrics: Record<string, number>): void {
  const row = (label: string, value: string) => console.log(`${label.padEnd(44)} ${value}`)
  const f = (n: number | undefined, digits = 1) => (n ?? Number.NaN).toFixed(digits)
  row(
    "file",
    `${f(metrics.file_mib, 0)} MiB, ${metrics.lines} lines (written in ${f(metrics.generate_ms, 0)} ms)`,
  )
  row(`tail -n 2000 (median of ${RUNS})`, `${f(metrics.tail_ms, 2)} ms`)
  row("wc -l (median of 3)", `${f(metrics.wc_l_ms, 0)} ms`)
  row("cold: first page + count + index", `${f(metrics.cold_first_page_ms, 0)} ms`)
  row("cold: first page + count + index + sha256", `${f(metrics.cold_first_page_hash_ms, 0)} ms`)
  row(
    `warm: last 2000 lines via the index (median of ${RUNS})`,
    `${f(metrics.warm_last_page_ms, 2)} ms  (${f(metrics.warm_ratio_to_tail, 2)}x tail)`,
  )
  row(
    `readLastLines(2000), backwards (median of ${RUNS})`,
    `${f(metrics.read_last_lines_ms, 2)} ms  (${f(metrics.read_last_lines_ratio_to_tail, 2)}x tail)`,
  )
  row("RSS before reading (Node + TS loader + modules)", `${f(metrics.rss_before_mib)} MiB`)
  row(
    "peak RSS while reading (maxRSS)",
    `${f(metrics.peak_rss_mib)} MiB = ${metrics.peak_rss_kb} KB${metrics.peak_reset_ok ? "" : " (peak not reset)"}`,
  )
  row("peak RSS added by the reading", `${f(metrics.peak_over_baseline_mib)} MiB`)
  row("a Node that does nothing: peak RSS", `${f(metrics.js_bare_node_rss_mib)} MiB`)
  row(
    "plain JS, fresh Node, cold last page only",
    `${f(metrics.js_last_page_only_ms, 0)} ms, peak RSS ${f(metrics.js_last_page_only_rss_mib)} MiB`,
  )
  row("as plain JS in a fresh Node: RSS before", `${f(metrics.js_baseline_rss_mib)} MiB`)
  row(
    "as plain JS: peak RSS (maxRSS)",
    `${f(metrics.js_peak_rss_mib)} MiB = ${metrics.js_peak_rss_kb} KB  (cold ${f(metrics.js_cold_first_page_ms, 0)} ms, ` +
      `warm ${f(metrics.js_warm_last_page_ms, 2)} ms, backwards ${f(metrics.js_read_last_lines_ms, 2)} ms)`,
  )
}

const entry = process.argv[1]
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) {
  if (process.argv[2] === "--generate") console.log(await generate(process.argv[3]!, FILE_MIB))
  else print(await run())
}
