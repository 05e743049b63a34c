import { mkdtemp, rm, stat } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { cut } from "../src/platform/text/cut.ts"
import { DEFAULT_LIMITS } from "../src/platform/text/limits.ts"
import { OutputStore } from "../src/runtime/output/store.ts"
import { truncate } from "../src/runtime/output/truncate.ts"
import { resetPeakRss } from "./lib/measure.ts"

const LINES = 2_500_000
const MIB = 1024 * 1024

/** Returns the measurements (times in ms, sizes in MiB, speeds in MiB/s) and prints them as a table. */
export async function run(): Promise<Record<string, number>> {
  const buildStart = performance.now()
  const text = buildLog(LINES)
  const buildMs = performance.now() - buildStart
  const inputMiB = Buffer.byteLength(text) / MIB

  // Measure from here: the build's garbage and its own peak must not hide (or inflate) the truncation's.
  collectGarbage()
  const peakReset = resetPeakRss()
  const rssAfterBuild = process.memoryUsage.rss()

  const cutStart = performance.now()
  const bounded = cut(text, { ...DEFAULT_LIMITS, direction: "tail" })
  const cutMs = performance.now() - cutStart

  const dir = await mkdtemp(join(tmpdir(), "toolbelt-bench-"))
  try {
    const store = new OutputStore({ dir: join(dir, "tool-output") })
    const truncateStart = performance.now()
    const result = await truncate(text, { limits: DEFAULT_LIMITS, direction: "tail", store })
    const truncateMs = performance.now() - truncateStart
    const peakRss = process.resourceUsage().maxRSS * 1024
    if (!result.truncated || !bounded.truncated) throw new Error("the benchmark output was not truncated")
    const writtenMiB = (await stat(result.outputPath)).size / MIB
    const metrics = {
      input_mib: inputMiB,
      lines: LINES,
      build_ms: buildMs,
      cut_ms: cutMs,
      cut_mib_per_s: inputMiB / (cutMs / 1000),
      truncate_ms: truncateMs,
      truncate_mib_per_s: inputMiB / (truncateMs / 1000),
      written_mib: writtenMiB,
      content_kib: Buffer.byteLength(result.content) / 1024,
      signal_lines: bounded.signals.length,
      rss_after_build_mib: rssAfterBuild / MIB,
      peak_rss_mib: peakRss / MIB,
      peak_delta_mib: (peakRss - rssAfterBuild) / MIB,
      peak_reset_ok: peakReset ? 1 : 0,
    }
    return metrics
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** Realistic service/test log: timestamps, levels, request lines, and a few failures spread through it. */
function buildLog(lines: number): string {
  const chunks: string[] = []
  const levels = ["INFO ", "DEBUG", "INFO ", "WARN "]
  for (let start = 0; start < lines; start += 10_000) {
    const chunk: string[] = []
    for (let i = start; i < Math.min(start + 10_000, lines); i++) {
      const ms = String(i % 1000).padStart(3, "0")
      if (i % 400_000 === 123) {
        chunk.push(
          `2026-11-22T02:44:${String(i % 60).padStart(2, "0")}.${ms}Z ERROR worker-${i % 16} Error: upstream timed out`,
        )
      } else if (i % 700_000 === 456) {
        chunk.push(`FAIL src/service/worker-${i % 16}.test.ts > retries the request ${i}`)
      } else {
        chunk.push(
          `2026-11-22T02:44:${String(i % 60).padStart(2, "0")}.${ms}Z ${levels[i % 4]} worker-${i % 16} GET /api/items/${i} 200 ${i % 97}ms req=${requestId(i)}`,
        )
      }
    }
    chunks.push(chunk.join("\n"))
  }
  chunks.push("Tests: 3 failed, 997 passed, 1000 total")
  return chunks.join("\n")
}

function requestId(i: number): string {
  return (Math.imul(i, 2654435761) >>> 0).toString(16).padStart(8, "0")
}

/** Exposes V8's gc() without a command-line flag, so the baseline is not inflated by the build's garbage. */
function collectGarbage(): void {
  try {
    setFlagsFromString("--expose-gc")
    const gc = runInNewContext("gc") as () => void
    gc()
    gc()
  } catch {
    // Without gc the delta is still an upper bound on what truncation added.
  }
}

function print(metrics: Record<string, number>): void {
  const row = (label: string, value: string) => console.log(`${label.padEnd(34)} ${value}`)
  const f = (n: number | undefined, digits = 1) => (n ?? Number.NaN).toFixed(digits)
  row("input", `${f(metrics.input_mib)} MiB, ${metrics.lines} lines`)
  row("build the string", `${f(metrics.build_ms, 0)} ms`)
  row("cut (pure, tail)", `${f(metrics.cut_ms, 0)} ms  (${f(metrics.cut_mib_per_s, 0)} MiB/s)`)
  row(
    "truncate (cut + save full text)",
    `${f(metrics.truncate_ms, 0)} ms  (${f(metrics.truncate_mib_per_s, 0)} MiB/s)`,
  )
  row("saved file", `${f(metrics.written_mib)} MiB`)
  row("content for the model", `${f(metrics.content_kib)} KiB, ${metrics.signal_lines} signal lines`)
  row("RSS after building the string", `${f(metrics.rss_after_build_mib)} MiB`)
  row("peak RSS during cut + truncate", `${f(metrics.peak_rss_mib)} MiB`)
  row(
    "peak delta over the built string",
    `${f(metrics.peak_delta_mib)} MiB${metrics.peak_reset_ok ? "" : " (peak not reset: includes the build)"}`,
  )
}

const entry = process.argv[1]
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) {
  print(await run())
}
