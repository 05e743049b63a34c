// The shell runner under load: a command printing 1 GB (wall time against the same command writing to
// /dev/null, peak RSS of this process), and the per-call overhead of running `true` against a bare
// child_process.spawn, for the runner alone and for the bash tool through the whole settlement pipeline.
// Goals: peak RSS under 100 MB for 1 GB of output; overhead under 5 ms per call.
//
// Peak RSS is measured twice: in this process, which runs the TypeScript sources (Node's type stripper
// alone keeps ~40 MB of WebAssembly memory, and this bench also loads the settlement pipeline and the
// tree-sitter parser), and in a child process that runs only the runner as plain JavaScript, the way the
// published package runs from dist/. The second is what a user's process pays.
// Run: node bench/shell.bench.ts
import { spawn } from "node:child_process"
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises"
import { stripTypeScriptTypes } from "node:module"
import { loadavg, tmpdir } from "node:os"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { chooseShell, commandEnv, runCommand } from "../src/platform/shell/run/index.ts"
import { containment } from "../src/platform/shell/run/reaper.ts"
import { DEFAULT_LIMITS } from "../src/platform/text/limits.ts"
import { OutputStore } from "../src/runtime/output/store.ts"
import { RulePermissions } from "../src/runtime/permission/simple.ts"
import { Registry } from "../src/runtime/registry/registry.ts"
import { settle } from "../src/runtime/settle/settle.ts"
import { BashTool } from "../src/tools/bash/bash.ts"
import { median, resetPeakRss } from "./lib/measure.ts"

const MIB = 1024 * 1024
const BYTES = 1_000_000_000
const PRODUCER = `head -c ${BYTES} /dev/zero | tr '\\0' 'a' | fold -w 100`
const CALLS = 200

export interface ShellResults extends Record<string, number> {
  output_mb: number
  devnull_ms: number
  runner_ms: number
  slowdown: number
  baseline_rss_mib: number
  peak_rss_mib: number
  peak_delta_mib: number
  saved_mb: number
  js_runner_ms: number
  js_baseline_rss_mib: number
  js_peak_rss_mib: number
  bare_spawn_median_ms: number
  runner_median_ms: number
  runner_overhead_ms: number
  /** The runner with the child subreaper turned off: the difference is the wrapper's cost per command. */
  unreaped_median_ms: number
  reaper_cost_ms: number
  tool_median_ms: number
  tool_overhead_ms: number
  bare_cpu_ms: number
  runner_cpu_ms: number
  tool_cpu_ms: number
  load_average: number
}

export async function run(): Promise<ShellResults> {
  const dir = await mkdtemp(join(tmpdir(), "toolbelt-shell-bench-"))
  try {
    const shell = chooseShell()
    const marker = `bench-${process.pid}`
    const base = {
      cwd: dir,
      shell,
      env: commandEnv({ marker }),
      marker,
      limits: DEFAULT_LIMITS,
      storeDir: join(dir, "tool-output"),
    }

    // 1 GB: the producer alone (to /dev/null), then through the runner.
    const devnullStart = performance.now()
    await bare(shell.path, `${PRODUCER} > /dev/null`)
    const devnullMs = performance.now() - devnullStart

    collectGarbage()
    resetPeakRss()
    const baseline = process.memoryUsage.rss()
    let sampled = baseline
    const sampler = setInterval(() => {
      sampled = Math.max(sampled, process.memoryUsage.rss())
    }, 5)
    const runnerStart = performance.now()
    const result = await runCommand({ ...base, command: PRODUCER, timeoutMs: 600_000, onProgress: () => {} })
    const runnerMs = performance.now() - runnerStart
    clearInterval(sampler)
    const peak = Math.max(sampled, process.resourceUsage().maxRSS * 1024)
    if (!result.output.outputPath) throw new Error("the 1 GB output was not saved")
    const saved = (await stat(result.output.outputPath)).size
    await rm(result.output.outputPath)

    // The same in a process that runs the runner as plain JavaScript.
    const js = await measureInJsProcess(dir)

    // Per call: `true`, alternating so that drift in the machine's load hits all three alike.
    const registry = new Registry()
    registry.register({ bash: BashTool })
    const deps = {
      registry,
      permission: new RulePermissions({
        rules: [{ permission: "*", pattern: "*", action: "allow" as const }],
      }),
      store: new OutputStore({ dir: join(dir, "tool-output") }),
      limits: DEFAULT_LIMITS,
    }
    const bareTimes: number[] = []
    const runnerTimes: number[] = []
    const unreapedTimes: number[] = []
    const toolTimes: number[] = []
    // CPU time of this process per call: unlike wall time, not inflated when the machine is busy.
    let bareCpu = 0
    let runnerCpu = 0
    let toolCpu = 0
    const used = () => {
      const usage = process.cpuUsage()
      return (usage.user + usage.system) / 1000
    }
    for (let i = 0; i < CALLS + 10; i++) {
      const c0 = used()
      const t0 = performance.now()
      await bare(shell.path, "true")
      const t1 = performance.now()
      const c1 = used()
      await runCommand({ ...base, command: "true", timeoutMs: 10_000 })
      const t2 = performance.now()
      const c2 = used()
      const u0 = performance.now()
      await runCommand({ ...base, command: "true", timeoutMs: 10_000, reaper: false })
      const unreaped = performance.now() - u0
      const c2b = used()
      const t2b = performance.now()
      const settled = await settle(
        {
          tool: "bash",
          input: { command: "true" },
          sessionID: "ses_bench",
          messageID: "msg_bench",
          agent: "build",
          callID: `call_${i}`,
          extra: { directory: dir, outputDir: join(dir, "tool-output") },
        },
        deps,
      )
      const t3 = performance.now()
      const c3 = used()
      if (settled.status !== "completed") throw new Error(`bench call failed: ${JSON.stringify(settled)}`)
      if (i < 10) continue // warm-up
      bareCpu += c1 - c0
      runnerCpu += c2 - c1
      toolCpu += c3 - c2b
      bareTimes.push(t1 - t0)
      runnerTimes.push(t2 - t1)
      unreapedTimes.push(unreaped)
      toolTimes.push(t3 - t2b)
    }
    const bareMedian = median(bareTimes)
    return {
      output_mb: result.output.totalBytes / 1e6,
      devnull_ms: devnullMs,
      runner_ms: runnerMs,
      slowdown: runnerMs / devnullMs,
      baseline_rss_mib: baseline / MIB,
      peak_rss_mib: peak / MIB,
      peak_delta_mib: (peak - baseline) / MIB,
      saved_mb: saved / 1e6,
      js_runner_ms: js.ms,
      js_baseline_rss_mib: js.baseline / MIB,
      js_peak_rss_mib: js.peak / MIB,
      bare_spawn_median_ms: bareMedian,
      runner_median_ms: median(runnerTimes),
      runner_overhead_ms: median(runnerTimes) - bareMedian,
      unreaped_median_ms: median(unreapedTimes),
      reaper_cost_ms: median(runnerTimes) - median(unreapedTimes),
      tool_median_ms: median(toolTimes),
      tool_overhead_ms: median(toolTimes) - bareMedian,
      bare_cpu_ms: bareCpu / CALLS,
      runner_cpu_ms: runnerCpu / CALLS,
      tool_cpu_ms: toolCpu / CALLS,
      load_average: loadavg()[0]!,
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

export function report(r: ShellResults): void {
  const f = (n: number, digits = 1) => n.toFixed(digits)
  console.log(`1 GB of output (${f(r.output_mb, 0)} MB): \`${PRODUCER}\``)
  console.log(`  to /dev/null             ${f(r.devnull_ms, 0)} ms`)
  console.log(
    `  through the runner       ${f(r.runner_ms, 0)} ms  (${f(r.slowdown, 2)}x; all of it saved: ${f(r.saved_mb, 0)} MB)`,
  )
  console.log(
    `  RSS of this process      baseline ${f(r.baseline_rss_mib)} MiB, peak ${f(r.peak_rss_mib)} MiB (+${f(r.peak_delta_mib)} MiB)  (goal: peak under 100 MB)`,
  )
  console.log(
    `  runner as plain JS       ${f(r.js_runner_ms, 0)} ms; RSS baseline ${f(r.js_baseline_rss_mib)} MiB, peak ${f(r.js_peak_rss_mib)} MiB (+${f(r.js_peak_rss_mib - r.js_baseline_rss_mib)} MiB)`,
  )
  console.log(
    `per call, \`true\`, median wall time of ${CALLS}, and CPU of this process per call (goal: overhead under 5 ms; load average ${f(r.load_average, 2)})`,
  )
  console.log(`  bare child_process.spawn ${f(r.bare_spawn_median_ms, 2)} ms   cpu ${f(r.bare_cpu_ms, 2)} ms`)
  console.log(
    `  runner                   ${f(r.runner_median_ms, 2)} ms (+${f(r.runner_overhead_ms, 2)})   cpu ${f(r.runner_cpu_ms, 2)} ms (+${f(r.runner_cpu_ms - r.bare_cpu_ms, 2)})`,
  )
  console.log(
    `  runner, no subreaper     ${f(r.unreaped_median_ms, 2)} ms   (the subreaper wrapper costs ${f(r.reaper_cost_ms, 2)} ms per command; active: ${containment().detail})`,
  )
  console.log(
    `  bash tool through settle ${f(r.tool_median_ms, 2)} ms (+${f(r.tool_overhead_ms, 2)})   cpu ${f(r.tool_cpu_ms, 2)} ms (+${f(r.tool_cpu_ms - r.bare_cpu_ms, 2)})`,
  )
}

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "../src")

/**
 * Runs the 1 GB command in a child Node process that loads only the runner, as JavaScript: the runner's
 * sources and what they import, with their types stripped, as `npm run build` would ship them.
 */
async function measureInJsProcess(dir: string): Promise<{ ms: number; baseline: number; peak: number }> {
  const out = join(dir, "js")
  const queue = [join(SRC, "shell/run/index.ts")]
  const done = new Set<string>()
  while (queue.length) {
    const file = queue.pop()!
    if (done.has(file)) continue
    done.add(file)
    const source = await readFile(file, "utf8")
    for (const match of source.matchAll(/from "(\.{1,2}\/[^"]+\.ts)"/g))
      queue.push(resolve(dirname(file), match[1]!))
    const js = stripTypeScriptTypes(source).replace(/from "(\.{1,2}\/[^"]+)\.ts"/g, 'from "$1.js"')
    const target = join(out, relative(SRC, file)).replace(/\.ts$/, ".js")
    await mkdir(dirname(target), { recursive: true })
    await writeFile(target, js)
  }
  const driver = join(out, "driver.mjs")
  await writeFile(
    driver,
    `import { writeFileSync } from "node:fs"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { chooseShell, commandEnv, runCommand } from "./shell/run/index.js"
setFlagsFromString("--expose-gc")
const gc = runInNewContext("gc")
gc(); gc()
try { writeFileSync("/proc/self/clear_refs", "5") } catch {}
const baseline = process.memoryUsage.rss()
let peak = baseline
const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage.rss()) }, 5)
const marker = "bench-js-" + process.pid
const start = performance.now()
const result = await runCommand({ command: ${JSON.stringify(PRODUCER)}, cwd: ${JSON.stringify(dir)}, shell: chooseShell(),
  env: commandEnv({ marker }), marker, limits: { maxLines: 2000, maxBytes: 51200 },
  storeDir: ${JSON.stringify(join(dir, "tool-output-js"))}, timeoutMs: 600000, onProgress: () => {} })
const ms = performance.now() - start
clearInterval(sampler)
peak = Math.max(peak, process.resourceUsage().maxRSS * 1024)
if (result.output.totalBytes !== ${BYTES + BYTES / 100 - 1}) throw new Error("lost output: " + result.output.totalBytes)
console.log(JSON.stringify({ ms, baseline, peak }))
`,
  )
  const stdout = await new Promise<string>((resolvePromise, reject) => {
    const child = spawn(process.execPath, [driver], { stdio: ["ignore", "pipe", "inherit"] })
    let text = ""
    child.stdout.on("data", (chunk: Buffer) => {
      text += chunk.toString()
    })
    child.once("error", reject)
    child.once("close", (code) =>
      code === 0 ? resolvePromise(text) : reject(new Error(`the JS runner exited ${code}`)),
    )
  })
  await rm(join(dir, "tool-output-js"), { recursive: true, force: true })
  return JSON.parse(stdout) as { ms: number; baseline: number; peak: number }
}

/** The baseline: spawn the shell, wait for it to close, nothing else. */
function bare(shell: string, command: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(shell, ["-c", command], { stdio: ["ignore", "pipe", "pipe"] })
    child.stdout.resume()
    child.stderr.resume()
    child.once("error", reject)
    child.once("close", () => resolve())
  })
}

/** Exposes V8's gc() without a command-line flag, so the baseline is not inflated by start-up garbage. */
function collectGarbage(): void {
  try {
    setFlagsFromString("--expose-gc")
    const gc = runInNewContext("gc") as () => void
    gc()
    gc()
  } catch {}
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) report(await run())
