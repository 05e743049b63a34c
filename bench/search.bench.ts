// Search on the Linux kernel sources (~78,000 files, 1.5 GB): ripgrep itself, toolbelt's ripgrep backend and
// its in-process fallback, in one process run, interleaved round by round (the machine may be shared, so
// CPU time is reported beside wall time).
// Run: node bench/search.bench.ts   (the tree comes from ../shared/bench/linux-corpus.sh, or
// TOOLBELT_SEARCH_CORPUS=<dir>; TOOLBELT_SEARCH_ROUNDS=<n> rounds, default 7).
// Goals (issue 5): ripgrep backend within 1.10x of rg; fallback within 2x of rg for grep and 1.5x of
// `rg --files` for glob; peak RSS under 200 MB.
import { execFileSync, spawn } from "node:child_process"
import { existsSync, readFileSync, statSync } from "node:fs"
import { availableParallelism, loadavg } from "node:os"
import { join, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { FallbackBackend } from "../src/platform/search/fallback.ts"
import { RipgrepBackend } from "../src/platform/search/ripgrep.ts"
import { which } from "../src/platform/search/select.ts"
import { median, resetPeakRss } from "./lib/measure.ts"

interface Case {
  readonly name: string
  /** rg's own arguments for the same search. */
  readonly rg: string[]
  readonly run: (backend: FallbackBackend | RipgrepBackend, root: string) => Promise<number>
}

/** Flags toolbelt passes to rg, so rg alone does the same walk. */
const FLAGS = ["--no-config", "--hidden", "--no-ignore-global", "--no-messages", "--glob", "!.git"]
const LIMIT = 100

const grep =
  (pattern: string, ignoreCase = false): Case["run"] =>
  async (backend, root) =>
    (await backend.grep(root, { pattern, ignoreCase, limit: LIMIT })).totalMatches

const glob =
  (pattern: string): Case["run"] =>
  async (backend, root) =>
    (await backend.files(root, { pattern: [pattern], limit: LIMIT })).total

const CASES: Case[] = [
  { name: "grep literal PM_RESUME", rg: [...FLAGS, "-e", "PM_RESUME", "."], run: grep("PM_RESUME") },
  { name: "grep -i pm_resume", rg: [...FLAGS, "-i", "-e", "pm_resume", "."], run: grep("pm_resume", true) },
  { name: "grep regex \\w+_RESUME", rg: [...FLAGS, "-e", "\\w+_RESUME", "."], run: grep("\\w+_RESUME") },
  { name: "glob **/*.c", rg: [...FLAGS, "--files", "--glob", "**/*.c", "."], run: glob("**/*.c") },
  {
    name: "glob **/Kconfig",
    rg: [...FLAGS, "--files", "--glob", "**/Kconfig", "."],
    run: glob("**/Kconfig"),
  },
]

/** Wall time (median) and CPU time (mean; all threads and the rg processes), in ms. */
export interface Timing {
  readonly wall: number
  readonly cpu: number
}

export interface SearchBenchResult {
  readonly root: string
  readonly rounds: number
  readonly threads: number
  /** Load average when the run ended (the machine may be shared). */
  readonly load: number
  /** Per case: rg alone, the ripgrep backend, the fallback, and how many matches (or files) all found. */
  readonly cases: { name: string; rg: Timing; ripgrep: Timing; fallback: Timing; results: number }[]
  /** `rg --files` listing every file (the issue's reference for glob). */
  readonly rgFiles: Timing
  /**
   * Per glob case: the least any backend in Node that stats every match (for newest-first order) can do
   * here: rg's output read and each path stat'ed as it arrives, nothing else (no matching, no sorting,
   * no threads); measured in the same rounds.
   */
  readonly bareStat: { name: string; wall: Timing }[]
  readonly fallbackPeakRssMb: number
  readonly ripgrepPeakRssMb: number
  /** The fallback's first search, which starts its worker threads. */
  readonly fallbackColdMs: number
}

/** Runs every case `rounds` times, interleaved (rg, ripgrep backend, fallback), after a warm-up round. */
export async function run(): Promise<SearchBenchResult> {
  const root = corpus()
  const rg = which("rg")
  if (!rg) throw new Error("search.bench needs ripgrep (rg) on PATH")
  const rounds = Number(process.env.TOOLBELT_SEARCH_ROUNDS ?? 7)
  const ripgrep = new RipgrepBackend(rg)
  const fallback = new FallbackBackend()

  // Cold: the first fallback search starts the worker threads (the page cache is warmed by rg first).
  await measure(() => timeRg(rg, CASES[0]!.rg, root))
  const cold = await measure(() => CASES[0]!.run(fallback, root))

  const samples = CASES.map(() => ({
    rg: [] as Sample[],
    ripgrep: [] as Sample[],
    fallback: [] as Sample[],
    bare: [] as Sample[],
    results: 0,
  }))
  const filesSamples: Sample[] = []
  let fallbackPeak = 0
  let ripgrepPeak = 0
  for (let round = -1; round < rounds; round++) {
    for (const [index, test] of CASES.entries()) {
      const alone = await measure(() => timeRg(rg, test.rg, root))
      resetPeakRss()
      const viaRipgrep = await measure(() => test.run(ripgrep, root))
      ripgrepPeak = Math.max(ripgrepPeak, peakRssMb())
      resetPeakRss()
      const viaFallback = await measure(() => test.run(fallback, root))
      fallbackPeak = Math.max(fallbackPeak, peakRssMb())
      if (viaRipgrep.value !== viaFallback.value) {
        throw new Error(`${test.name}: the backends disagree (${viaRipgrep.value} vs ${viaFallback.value})`)
      }
      const bare = test.name.startsWith("glob") ? await measure(() => bareStat(rg, test.rg, root)) : undefined
      if (round < 0) continue // Warm-up.
      const sample = samples[index]!
      if (bare) sample.bare.push(bare)
      sample.rg.push(alone)
      sample.ripgrep.push(viaRipgrep)
      sample.fallback.push(viaFallback)
      sample.results = viaFallback.value
    }
    if (round >= 0) filesSamples.push(await measure(() => timeRg(rg, [...FLAGS, "--files", "."], root)))
  }
  return {
    root,
    rounds,
    bareStat: CASES.flatMap((test, index) =>
      test.name.startsWith("glob") ? [{ name: test.name, wall: timing(samples[index]!.bare) }] : [],
    ),
    threads: Number(process.env.TOOLBELT_SEARCH_THREADS) || Math.min(availableParallelism(), 8),
    load: loadavg()[0]!,
    cases: CASES.map((test, index) => {
      const sample = samples[index]!
      return {
        name: test.name,
        rg: timing(sample.rg),
        ripgrep: timing(sample.ripgrep),
        fallback: timing(sample.fallback),
        results: sample.results,
      }
    }),
    rgFiles: timing(filesSamples),
    fallbackPeakRssMb: fallbackPeak,
    ripgrepPeakRssMb: ripgrepPeak,
    fallbackColdMs: cold.wall,
  }
}

export function report(result: SearchBenchResult): void {
  console.log(
    `tree ${result.root}; ${result.threads} threads; median of ${result.rounds} interleaved rounds after a warm-up; load average ${result.load.toFixed(1)}`,
  )
  console.log(
    "wall: median ms; cpu: mean ms of CPU time (all threads, rg processes included); x: over rg alone",
  )
  const pad = (text: string, width: number) => text.padStart(width)
  const cell = (timing: Timing, base: Timing) =>
    `${pad(timing.wall.toFixed(0), 6)} ${pad(`${(timing.wall / base.wall).toFixed(2)}x`, 6)} ${pad(timing.cpu.toFixed(0), 6)} ${pad(`${(timing.cpu / base.cpu).toFixed(2)}x`, 6)}`
  console.log(`${"".padEnd(32)} ${"rg alone".padEnd(15)} ${"ripgrep backend".padEnd(29)} fallback`)
  const heads = `${pad("wall", 6)} ${pad("", 6)} ${pad("cpu", 6)} ${pad("", 6)}`
  console.log(
    `${"case".padEnd(24)} ${pad("results", 7)} ${pad("wall", 6)} ${pad("cpu", 6)}   ${heads}   ${heads}`,
  )
  for (const row of result.cases) {
    console.log(
      `${row.name.padEnd(24)} ${pad(String(row.results), 7)} ${pad(row.rg.wall.toFixed(0), 6)} ${pad(row.rg.cpu.toFixed(0), 6)}   ${cell(row.ripgrep, row.rg)}   ${cell(row.fallback, row.rg)}`,
    )
  }
  const files = result.rgFiles
  console.log(`rg --files (every file): wall ${files.wall.toFixed(0)} ms, cpu ${files.cpu.toFixed(0)} ms`)
  for (const row of result.cases.filter((test) => test.name.startsWith("glob"))) {
    console.log(
      `${row.name.padEnd(24)} over rg --files: ripgrep backend wall ${(row.ripgrep.wall / files.wall).toFixed(2)}x, cpu ${(row.ripgrep.cpu / files.cpu).toFixed(2)}x; fallback wall ${(row.fallback.wall / files.wall).toFixed(2)}x, cpu ${(row.fallback.cpu / files.cpu).toFixed(2)}x`,
    )
  }
  for (const row of result.bareStat) {
    const test = result.cases.find((other) => other.name === row.name)!
    console.log(
      `${row.name.padEnd(24)} rg + a bare statSync of each match as it streams (the floor in Node): wall ${row.wall.wall.toFixed(0)} ms = ${(row.wall.wall / test.rg.wall).toFixed(2)}x, cpu ${row.wall.cpu.toFixed(0)} ms = ${(row.wall.cpu / test.rg.cpu).toFixed(2)}x`,
    )
  }
  console.log(
    `peak RSS (whole process, both backends share it): fallback ${result.fallbackPeakRssMb.toFixed(0)} MB, ripgrep backend ${result.ripgrepPeakRssMb.toFixed(0)} MB`,
  )
  console.log(`fallback's first search (starts its workers): ${result.fallbackColdMs.toFixed(0)} ms`)
  console.log(
    "glob lists with the fallback's walker unless ripgrep is forced (src/search/select.ts listingBackend): its column is glob's speed",
  )
}

interface Sample {
  readonly wall: number
  readonly cpu: number
  readonly value: number
}

/** Wall time, and CPU time of this process (all threads) plus the child processes it waited for. */
async function measure(work: () => Promise<number>): Promise<Sample> {
  const cpu = cpuMs()
  const started = performance.now()
  const value = await work()
  return { wall: performance.now() - started, cpu: cpuMs() - cpu, value }
}

function cpuMs(): number {
  const own = process.cpuUsage()
  return (own.user + own.system) / 1000 + childrenCpuMs()
}

/** Linux: CPU time of the waited-for children (`cutime` + `cstime` of /proc/self/stat, 100 ticks/s). */
function childrenCpuMs(): number {
  try {
    const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ")
    return (Number(fields[13]) + Number(fields[14])) * 10
  } catch {
    return 0
  }
}

function timing(samples: Sample[]): Timing {
  return {
    wall: median(samples.map((sample) => sample.wall)),
    cpu: samples.reduce((sum, sample) => sum + sample.cpu, 0) / samples.length,
  }
}

/** The Linux tree: TOOLBELT_SEARCH_CORPUS, else what linux-corpus.sh prepares (run once, a few minutes). */
function corpus(): string {
  const given = process.env.TOOLBELT_SEARCH_CORPUS
  if (given) return resolve(given)
  const known = "/tmp/toolbelt-corpus/linux-source-6.1"
  if (existsSync(join(known, "kernel"))) return known
  const script = resolve(import.meta.dirname, "../../shared/bench/linux-corpus.sh")
  if (!existsSync(script)) throw new Error(`no corpus: set TOOLBELT_SEARCH_CORPUS or provide ${script}`)
  return execFileSync("bash", [script], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim()
}

/** rg alone, its output drained (as a caller would read it). Resolves with the time taken. */
function timeRg(rg: string, args: string[], cwd: string): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const started = performance.now()
    const child = spawn(rg, args, { cwd, stdio: ["ignore", "pipe", "ignore"] })
    child.stdout.on("data", () => {})
    child.on("error", reject)
    child.on("close", () => resolvePromise(performance.now() - started))
  })
}

/** rg with `args` (`--null` added), each listed path stat'ed in this thread as it arrives; the count. */
function bareStat(rg: string, args: string[], cwd: string): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(rg, [...args.slice(0, -1), "--null", "."], {
      cwd,
      stdio: ["ignore", "pipe", "ignore"],
    })
    let rest: Buffer | undefined
    let count = 0
    child.stdout.on("data", (chunk: Buffer) => {
      const data = rest ? Buffer.concat([rest, chunk]) : chunk
      let start = 0
      for (let at = data.indexOf(0); at >= 0; at = data.indexOf(0, start)) {
        if (statSync(`${cwd}/${data.toString("utf8", start, at)}`, { throwIfNoEntry: false })) count++
        start = at + 1
      }
      rest = start < data.length ? Buffer.from(data.subarray(start)) : undefined
    })
    child.on("error", reject)
    child.on("close", () => resolvePromise(count))
  })
}

function peakRssMb(): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"))
    if (match) return Number(match[1]) / 1024
  } catch {
    // Not Linux.
  }
  return process.resourceUsage().maxRSS / 1024
}

const entry = process.argv[1]
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) {
  report(await run())
}
