// The read tool on a 1 GiB file, through the whole settlement pipeline, against `tail` of the same lines.
// Run: node bench/file-read.bench.ts   (bench/read.bench.ts measures the fs reader underneath)
//
// 1. Write a 1 GiB log (1 MiB blocks of ~100-byte lines) to a temp project.
// 2. Cold: the first read of the last page (a fresh line-index cache): the tool must count the lines to
//    find the offset, and hashes the file for the read ledger in the same pass.
// 3. Warm: the same page again (the index and hash are cached for this version of the file), and the
//    page before it; medians of 15 runs, taking turns with `tail -n` of the same number of lines.
// 4. Restarted: the memory cache cleared before each read, as in a new process; the line index the cold
//    read saved in the data dir is loaded instead of counting again.
// 5. Peak RSS: this process's maxRSS after a reset (Linux), minus the RSS before reading.
import { execFileSync } from "node:child_process"
import { mkdtemp, open, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { MemoryReadLedger } from "../src/platform/fs/read-ledger.ts"
import { clearLineIndexCache } from "../src/platform/fs/read-lines.ts"
import { DEFAULT_LIMITS } from "../src/platform/text/limits.ts"
import { OutputStore } from "../src/runtime/output/store.ts"
import { RulePermissions } from "../src/runtime/permission/simple.ts"
import { Registry } from "../src/runtime/registry/registry.ts"
import { settle } from "../src/runtime/settle/settle.ts"
import { ReadTool } from "../src/tools/read/read.ts"
import { median, resetPeakRss, timeCommand } from "./lib/measure.ts"

const MiB = 1024 * 1024
const FILE_MIB = Number(process.env.FILE_MIB ?? 1024)
/** Lines per page: about 40 KB of these lines, under read's 50 KB cap, so the page is whole. */
const PAGE = 400
const RUNS = 15

export async function run(): Promise<Record<string, number>> {
  const dir = await mkdtemp(join(tmpdir(), "toolbelt-bench-file-read-"))
  const path = join(dir, "big.log")
  try {
    const total = await generate(path, FILE_MIB)
    const registry = new Registry()
    registry.register({ read: ReadTool })
    const deps = {
      registry,
      permission: new RulePermissions({
        rules: [{ permission: "*", pattern: "*", action: "allow" as const }],
      }),
      store: new OutputStore({ dir: join(dir, "tool-output") }),
      limits: DEFAULT_LIMITS,
    }
    const extra = { directory: dir, dataDir: join(dir, "data"), readLedger: new MemoryReadLedger() }
    let call = 0
    const read = async (offset: number) => {
      const result = await settle(
        {
          tool: "read",
          input: { filePath: path, offset, limit: PAGE },
          sessionID: "ses_bench",
          messageID: "msg_bench",
          agent: "build",
          callID: `call_${++call}`,
          extra,
        },
        deps,
      )
      if (result.status !== "completed") throw new Error(result.error)
      return result
    }

    const peakReset = resetPeakRss()
    const rssBefore = process.memoryUsage.rss() / MiB
    clearLineIndexCache()
    const lastOffset = total - PAGE + 1
    let start = performance.now()
    const cold = await read(lastOffset)
    const coldMs = performance.now() - start
    if (!cold.output.includes(`(End of file - total ${total} lines)`)) throw new Error("not the last page")

    const tailText = execFileSync("tail", ["-n", String(PAGE), path], {
      encoding: "utf8",
      maxBuffer: 16 * MiB,
    })
    const expected = tailText.split("\n").slice(0, -1)
    const shown = cold.output
      .split("\n")
      .filter((line) => /^\d+: /.test(line))
      .map((line) => line.replace(/^\d+: /, ""))
    if (shown.join("\n") !== expected.join("\n")) throw new Error("the tool's page differs from tail's")

    const tail: number[] = []
    const warm: number[] = []
    const previous: number[] = []
    for (let i = 0; i < RUNS; i++) {
      tail.push(...timeCommand(`tail -n ${PAGE} "${path}"`, 1))
      start = performance.now()
      await read(lastOffset)
      warm.push(performance.now() - start)
      start = performance.now()
      await read(lastOffset - PAGE)
      previous.push(performance.now() - start)
    }
    // As a new process would: the memory cache is empty, the index saved by the cold read is loaded.
    const restarted: number[] = []
    for (let i = 0; i < RUNS; i++) {
      clearLineIndexCache()
      start = performance.now()
      await read(lastOffset)
      restarted.push(performance.now() - start)
    }
    const peakRss = process.resourceUsage().maxRSS / 1024
    return {
      file_mib: FILE_MIB,
      lines: total,
      tail_ms: median(tail),
      cold_last_page_ms: coldMs,
      warm_last_page_ms: median(warm),
      warm_ratio_to_tail: median(warm) / median(tail),
      warm_previous_page_ms: median(previous),
      restarted_last_page_ms: median(restarted),
      restarted_ratio_to_tail: median(restarted) / median(tail),
      rss_before_mib: rssBefore,
      peak_rss_mib: peakRss,
      peak_added_mib: peakRss - rssBefore,
      peak_reset_ok: peakReset ? 1 : 0,
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** Writes `mib` MiB of ~100-byte log lines; returns the line count. */
async function generate(path: string, mib: number): Promise<number> {
  const lines: string[] = []
  let size = 0
  for (let n = 0; size < MiB - 200; n++) {
    const line = `2026-11-22T02:44:${String(n % 60).padStart(2, "0")}Z INFO worker-${n % 16} GET /api/items/${n} 200 ${n % 97}ms détail\n`
    lines.push(line)
    size += Buffer.byteLength(line)
  }
  const block = Buffer.from(lines.join(""))
  const handle = await open(path, "w")
  try {
    for (let i = 0; i < mib; i++) await handle.write(block)
  } finally {
    await handle.close()
  }
  return lines.length * mib
}

const entry = process.argv[1]
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) {
  const results = await run()
  for (const [key, value] of Object.entries(results))
    console.log(`  ${key.padEnd(24)} ${Number.isInteger(value) ? value : value.toFixed(2)}`)
}
