// Glob matching: our automaton (src/platform/search/glob-match.ts) against picomatch, as glob.ts used it
// before (its two fast paths kept on both sides), in one process, interleaved round by round.
// 1. Typical globs over 100,000 generated paths in walker order (the files of one directory one after
//    another), in ns per path: the cost the walker and the ripgrep filter pay per file. `*.ts` and
//    `**/*.test.ts` take glob.ts's fast paths on both sides (the same code): their difference is noise.
// 2. Pathological globs (`*a*a*a*b`) on a 200-character name that does not match, in ms per match.
//    picomatch backtracks: it is measured up to 4 wildcards (5 took 15 s; TOOLBELT_GLOB_BENCH_SLOW=1 adds it).
//    Then globs with groups that picomatch turned into nested quantifiers: it is not run on those (a fuzzer
//    found `!(é1)+!,}aé`, which never finished on a 200-character name).
// Run: node bench/glob.bench.ts   (TOOLBELT_GLOB_ROUNDS=<n> rounds, default 9)
import { pathToFileURL } from "node:url"
import picomatch from "picomatch"
import { picomatchTest } from "../src/platform/search/fixtures/glob-before.ts"
import { globMatcher } from "../src/platform/search/glob.ts"
import { compileGlob } from "../src/platform/search/glob-match.ts"
import { median } from "./lib/measure.ts"

type Test = (dir: string, name: string) => boolean

const TYPICAL = [
  "*.ts",
  "*.{ts,tsx}",
  "**/*.test.ts",
  "src/**/*.test.ts",
  "**/src/**/*.test.ts",
  "**/{a,b}/*.json",
  "**/util-*.{ts,js}",
  "packages/*/src/**/*.ts",
  "**/test/*spec*",
  "*test*spec*fixture*json",
  "*.@(ts|tsx)",
  "src/**/*.+(c|h|test.ts)",
  "**/!(*.test).ts",
]

/** Globs with groups whose regular expressions picomatch could not match in bounded time. */
const PATHOLOGICAL_GROUPS = ["!(é1)+!,}aé", "*(a|b)*(a)*(b)*c", "+(*a)b", "!(*a*a*a*a)b"]

export interface GlobBenchResult {
  readonly paths: number
  readonly rounds: number
  /** Per glob: how many paths match, and ns per path for each matcher. */
  readonly typical: { glob: string; matches: number; picomatchNs: number; oursNs: number }[]
  /** Per glob: ms for one match on a 200-character name (picomatch undefined where not run). */
  readonly pathological: {
    glob: string
    wildcards: number
    picomatchMs: number | undefined
    oursMs: number
  }[]
  /** Per glob with groups: ms for one match on a 200-character name, compile included (picomatch not run). */
  readonly groups: { glob: string; oursMs: number }[]
}

export async function run(): Promise<GlobBenchResult> {
  const rounds = Number(process.env.TOOLBELT_GLOB_ROUNDS ?? 9)
  const paths = walkerOrderPaths(100_000)
  const typical = TYPICAL.map((glob) => {
    const before = picomatchTest(glob)
    const ours = globMatcher([glob])!
    const times = { before: [] as number[], ours: [] as number[] }
    let matches = 0
    for (let round = -1; round < rounds; round++) {
      const a = timePaths(before, paths)
      const b = timePaths(ours, paths)
      if (a.matches !== b.matches)
        throw new Error(`${glob}: the matchers disagree (${a.matches} vs ${b.matches})`)
      matches = b.matches
      if (round < 0) continue // Warm-up.
      times.before.push((a.ms * 1e6) / paths.length)
      times.ours.push((b.ms * 1e6) / paths.length)
    }
    return { glob, matches, picomatchNs: median(times.before), oursNs: median(times.ours) }
  })

  const slow = process.env.TOOLBELT_GLOB_BENCH_SLOW === "1"
  const pathological = [3, 4, 5, 10, 25].map((wildcards) => {
    // `*a*a*b` for 3 wildcards, on 200 `a`s: every way to place the `a`s is tried before the `b` fails.
    const glob = `${"*a".repeat(wildcards - 1)}*b`
    const name = "a".repeat(200)
    const runPicomatch = wildcards <= 4 || (wildcards === 5 && slow)
    const picomatchMs = runPicomatch ? timeOne(() => picomatch(glob, { dot: true })(name)) : undefined
    const oursMs = timeOne(() => compileGlob(glob).matches(name))
    return { glob, wildcards, picomatchMs, oursMs }
  })
  const groups = PATHOLOGICAL_GROUPS.map((glob) => {
    const name = glob.startsWith("!(é1)") ? "é1".repeat(100) : "a".repeat(200)
    return { glob, oursMs: timeOne(() => compileGlob(glob).matches(name)) }
  })
  return { paths: paths.length, rounds, typical, pathological, groups }
}

export function report(result: GlobBenchResult): void {
  console.log(
    `typical globs over ${result.paths.toLocaleString("en-US")} paths (ns per path, median of ${result.rounds})`,
  )
  for (const row of result.typical)
    console.log(
      `  ${row.glob.padEnd(26)} ${String(row.matches).padStart(6)} match   picomatch ${row.picomatchNs.toFixed(0).padStart(4)}   ours ${row.oursNs.toFixed(0).padStart(4)}   ${(100 * (row.oursNs / row.picomatchNs - 1)).toFixed(0).padStart(4)}%`,
    )
  console.log(
    "pathological globs on a 200-character name that does not match (ms per match, compile included)",
  )
  for (const row of result.pathological)
    console.log(
      `  ${row.glob.padEnd(56)} ${String(row.wildcards).padStart(2)} wildcards   picomatch ${row.picomatchMs === undefined ? "   (not run)" : row.picomatchMs.toFixed(2).padStart(12)}   ours ${row.oursMs.toFixed(2).padStart(8)}`,
    )
  console.log("globs with groups on a 200-character name (ms per match, compile included; picomatch not run)")
  for (const row of result.groups)
    console.log(`  ${row.glob.padEnd(56)} ours ${row.oursMs.toFixed(2).padStart(8)}`)
}

function timePaths(
  test: Test,
  paths: readonly (readonly [string, string])[],
): { ms: number; matches: number } {
  let matches = 0
  const start = performance.now()
  for (const [dir, name] of paths) if (test(dir, name)) matches++
  return { ms: performance.now() - start, matches }
}

/** The median ms of a few runs of `work` (one run when it takes over a second). */
function timeOne(work: () => boolean): number {
  const times: number[] = []
  for (let run = 0; run < 5; run++) {
    const start = performance.now()
    work()
    times.push(performance.now() - start)
    if (times[0]! > 1_000) break
  }
  return median(times)
}

/** `count` (directory, name) pairs of a repository-like tree, deterministic, a directory's files together. */
function walkerOrderPaths(count: number): [string, string][] {
  let seed = 7
  const random = (n: number) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
    return Math.floor((seed / 2 ** 31) * n)
  }
  const extensions = [
    ".ts",
    ".ts",
    ".ts",
    ".test.ts",
    ".js",
    ".json",
    ".md",
    ".c",
    ".h",
    ".py",
    ".tsx",
    ".css",
    "",
  ]
  const words = [
    "util",
    "index",
    "main",
    "parser",
    "config",
    "server",
    "client",
    "test",
    "spec",
    "model",
    "a",
    "b",
  ]
  const tops = ["src", "lib", "test", "docs", "packages", "tools"]
  const pairs: [string, string][] = []
  const visit = (dir: string, depth: number) => {
    for (let index = 20 + random(40); index > 0 && pairs.length < count; index--)
      pairs.push([dir, `${words[random(words.length)]}-${index}${extensions[random(extensions.length)]}`])
    if (depth === 5) return
    const children = depth === 0 ? tops.length : 1 + random(4)
    for (let child = 0; child < children && pairs.length < count; child++)
      visit(
        `${dir === "" ? "" : `${dir}/`}${depth === 0 ? tops[child] : `${words[random(words.length)]}${child}`}`,
        depth + 1,
      )
  }
  for (let repo = 0; pairs.length < count; repo++) visit(repo === 0 ? "" : `r${repo}`, 0)
  return pairs
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) report(await run())
