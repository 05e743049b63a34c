// `read` over MCP stdio: toolbelt's server against the reference filesystem server
// (@modelcontextprotocol/server-filesystem's read_text_file), the same file, the same client, one run.
// The shape is issue 31's: one 37 KB file of 900 short lines.
// 1. A temp project with that file. toolbelt is given the file's path spelled four ways in turn
//    (absolute, relative, ./relative, absolute through "."): the same file, but not the same call over
//    and over, which the doom-loop guard would rightly stop to ask about.
// 2. Start both servers as subprocesses (`toolbelt mcp --cwd DIR`, `node .../server-filesystem DIR`)
//    and connect the official client to each over stdio.
// 3. Warm up, then take turns: ROUNDS rounds; in each, every workload runs one block of CALLS calls on
//    each server, blocks interleaved, so both share the machine's noise. The workloads:
//    - settled: the file last written long ago, one call in flight, then 16 in flight;
//    - written: the file rewritten (a new first line) just before the block, as the issue measured it:
//      every call of the block reads a file written within the last second. One call in flight, then 16;
//    - fresh: the file rewritten before the block and every REWRITE_EVERY calls, so each new content is
//      read only REWRITE_EVERY times; the answer must hold the newest first line (a stale page would
//      fail the run). One call in flight, then 16 in flight;
//    - files in turn: FILES different files, more than toolbelt keeps pages of, one call in flight.
//    Every answer is checked to hold the file's last line.
// 4. toolbelt's floor, in the same rounds: a project tool (`.toolbelt/tools/`) that returns the text
//    `read` returned, without touching the file: what every toolbelt call costs (MCP, settle, the
//    journal) and nothing of the read itself.
// 5. For the split of toolbelt's time, the same calls in this process, without MCP: `read` through
//    `toolbelt.call`, and a tool that does nothing (the floor of the pipeline: settle and journal).
// Reports calls per second (all timed calls over their blocks' total time), the median latency in ms
// and each workload's ratio against the reference measured in the same rounds.
// Run: node bench/mcp.bench.ts (ROUNDS=n to change the number of rounds)
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { z } from "zod"
import { internals } from "../src/compose/internals.ts"
import { createToolbelt } from "../src/compose/toolbelt.ts"
import { SETTLED_MS } from "../src/platform/fs/version-cache.ts"
import * as Tool from "../src/runtime/tool/index.ts"
import { MAX_PAGES } from "../src/tools/read/page-cache.ts"
import { median } from "./lib/measure.ts"

const ROOT = fileURLToPath(new URL("..", import.meta.url))
const BIN = join(ROOT, "bin", "toolbelt.js")
const REFERENCE = join(ROOT, "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js")
/** The file: 900 short lines, 37 KB. */
const LINES = 900
const WARMUP = 100
const ROUNDS = Number(process.env.ROUNDS ?? 6)
const CALLS = 200
/** Calls in flight in the concurrent workloads. */
const IN_FLIGHT = 16
/** The fresh workloads rewrite their file this often, so it is never a second old. */
const REWRITE_EVERY = 25
/** More files than the read tool keeps pages of (MAX_PAGES), so each read of the cycle misses. */
const FILES = MAX_PAGES * 3

/** One server's side of a workload: a tool, the argument variants it cycles through. */
interface Side {
  readonly name: string
  readonly client: Client
  readonly tool: string
  readonly variants: Record<string, unknown>[]
  turn: number
  readonly latencies: number[]
  timeMs: number
}

/** What a workload does around its calls: the file's setup before a block and between calls. */
interface Workload {
  readonly name: string
  readonly inFlight: number
  readonly sides: Side[]
  /** Before the block (and every `every` calls): rewrites the file, returns what answers must hold. */
  readonly refresh?: () => Promise<string>
  /** How often `refresh` runs within the block, in calls; default: only before it. */
  readonly every?: number
}

/** The file's lines: 900 lines of about 41 bytes (37 KB), the first one naming its version. */
function fileText(version: string): string {
  const lines = Array.from({ length: LINES }, (_, i) =>
    i === 0 ? `// version ${version}` : `  const v${i} = input.at(${i % 97}) ?? ${i} // ${i + 1}`,
  )
  return `${lines.join("\n")}\n`
}

export async function run(): Promise<Record<string, number>> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-bench-mcp-")))
  const home = await mkdtemp(join(tmpdir(), "toolbelt-bench-mcp-home-"))
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    TOOLBELT_DATA_DIR: join(home, "data"),
  }
  const file = join(dir, "module.ts")
  const fresh = join(dir, "fresh.ts")
  const written = join(dir, "written.ts")
  const last = `// ${LINES}\n`
  await writeFile(file, fileText("settled"))
  await writeFile(fresh, fileText("0"))
  await writeFile(written, fileText("0"))
  const others = Array.from({ length: FILES }, (_, n) => join(dir, `module${n}.ts`))
  for (const [n, other] of others.entries()) await writeFile(other, fileText(`other ${n}`))
  const settledFrom = performance.now()

  const clients: Client[] = []
  const connect = async (command: string, args: string[], extra: Record<string, string> = {}) => {
    const client = new Client({ name: "bench", version: "1.0.0" })
    await client.connect(
      new StdioClientTransport({ command, args, env: { ...env, ...extra }, cwd: dir, stderr: "ignore" }),
    )
    clients.push(client)
    return client
  }
  try {
    const toolbeltClient = await connect(process.execPath, [BIN, "mcp", "--cwd", dir])
    const names = (await toolbeltClient.listTools()).tools.map((tool) => tool.name)
    if (!names.includes("read")) {
      console.log(
        "  skipped: the read tool is not registered yet (toolbelt mcp lists: " + names.join(", ") + ")",
      )
      return {}
    }
    const referenceClient = await connect(process.execPath, [REFERENCE, dir])

    const readText = await callSide(side("probe", toolbeltClient, "read", [{ filePath: file }]))
    await mkdir(join(dir, ".toolbelt", "tools"), { recursive: true })
    await writeFile(
      join(dir, ".toolbelt", "tools", "same_output.mjs"),
      `import { z } from "zod"\nexport default { description: "Returns what read returned.", args: { n: z.number() }, execute: () => ${JSON.stringify(readText)} }\n`,
    )
    // The project's tool files load only in a trusted project.
    const floorClient = await connect(process.execPath, [BIN, "mcp", "--cwd", dir], { TOOLBELT_TRUST: "1" })

    const spellings = (path: string) => {
      const relative = path.slice(dir.length + 1)
      return [path, relative, `./${relative}`, `${dir}/./${relative}`].map((filePath) => ({ filePath }))
    }
    const pair = (path: string) => [
      side("toolbelt", toolbeltClient, "read", spellings(path)),
      side("reference", referenceClient, "read_text_file", [{ path }]),
    ]
    let version = 0
    const rewriter = (path: string) => async () => {
      version++
      await writeFile(path, fileText(String(version)))
      return `// version ${version}\n`
    }
    const workloads: Workload[] = [
      { name: "settled", inFlight: 1, sides: pair(file) },
      { name: "settled_16", inFlight: IN_FLIGHT, sides: pair(file) },
      { name: "written", inFlight: 1, sides: pair(written), refresh: rewriter(written) },
      { name: "written_16", inFlight: IN_FLIGHT, sides: pair(written), refresh: rewriter(written) },
      { name: "fresh", inFlight: 1, sides: pair(fresh), refresh: rewriter(fresh), every: REWRITE_EVERY },
      {
        name: "fresh_16",
        inFlight: IN_FLIGHT,
        sides: pair(fresh),
        refresh: rewriter(fresh),
        every: REWRITE_EVERY,
      },
      {
        name: "files_in_turn",
        inFlight: 1,
        sides: [
          side(
            "toolbelt",
            toolbeltClient,
            "read",
            others.map((other) => ({ filePath: other })),
          ),
          side(
            "reference",
            referenceClient,
            "read_text_file",
            others.map((other) => ({ path: other })),
          ),
        ],
      },
      {
        name: "floor",
        inFlight: 1,
        // Arguments that differ call to call, so the doom-loop guard has nothing to stop.
        sides: [
          side(
            "toolbelt",
            floorClient,
            "same_output",
            Array.from({ length: 4 }, (_, n) => ({ n })),
          ),
        ],
      },
    ]
    // The settled workloads' files must be older than the page cache's settling time.
    const settling = settledFrom + SETTLED_MS + 100 - performance.now()
    if (settling > 0) await new Promise((resolve) => setTimeout(resolve, settling))
    for (const workload of workloads)
      for (const each of workload.sides) {
        const text = await callSide(each)
        if (!text.includes(last))
          throw new Error(`${each.name} did not return the whole file:\n${text.slice(-300)}`)
        for (let i = 0; i < WARMUP; i++) await callSide(each)
      }
    for (let round = 0; round < ROUNDS; round++)
      for (const workload of workloads) for (const each of workload.sides) await block(workload, each, last)

    const rate = (each: Side) => (each.latencies.length / each.timeMs) * 1000
    const results: Record<string, number> = {}
    for (const workload of workloads) {
      const [ours, reference] = workload.sides as [Side, Side | undefined]
      results[`${workload.name}_toolbelt_calls_per_s`] = rate(ours)
      results[`${workload.name}_toolbelt_median_ms`] = median(ours.latencies)
      if (!reference) continue
      results[`${workload.name}_reference_calls_per_s`] = rate(reference)
      results[`${workload.name}_reference_median_ms`] = median(reference.latencies)
      results[`${workload.name}_ratio_vs_reference`] = rate(ours) / rate(reference)
    }
    const inProcess = await withoutMcp(dir, env, file, last)
    results.in_process_read_median_ms = inProcess.read
    results.in_process_read_commits_per_call = inProcess.commits
    results.in_process_noop_median_ms = inProcess.noop
    return results
  } finally {
    await Promise.all(clients.map((client) => client.close().catch(() => {})))
    await rm(dir, { recursive: true, force: true })
    await rm(home, { recursive: true, force: true })
  }
}

/**
 * One timed block of CALLS calls with `workload.inFlight` in flight. A workload that refreshes its file
 * rewrites it first, and every `every` calls if it says so (between calls, with none in flight, so every
 * answer after a rewrite must show it).
 */
async function block(workload: Workload, each: Side, last: string): Promise<void> {
  let calls = 0
  while (calls < CALLS) {
    const expected = workload.refresh ? await workload.refresh() : last
    const burst = Math.min(workload.every ?? CALLS, CALLS - calls)
    const start = performance.now()
    let started = 0
    const worker = async () => {
      while (started < burst) {
        started++
        const began = performance.now()
        const text = await callSide(each)
        each.latencies.push(performance.now() - began)
        if (!text.includes(last) || !text.includes(expected))
          throw new Error(
            `${workload.name}: ${each.name} returned a short or stale answer:\n${text.slice(0, 200)}`,
          )
      }
    }
    await Promise.all(Array.from({ length: Math.min(workload.inFlight, burst) }, worker))
    each.timeMs += performance.now() - start
    calls += burst
  }
}

/** The same reads through `toolbelt.call` in this process, and the pipeline's floor (a no-op tool). */
async function withoutMcp(
  dir: string,
  env: Record<string, string>,
  file: string,
  last: string,
): Promise<{ read: number; commits: number; noop: number }> {
  const toolbelt = await createToolbelt({ directory: dir, env, sweep: false })
  try {
    toolbelt.register({
      noop: Tool.make({
        description: "Does nothing.",
        input: z.object({ n: z.number() }),
        execute: () => "",
      }),
    })
    const paths = [file, "module.ts", "./module.ts", `${dir}/./module.ts`]
    const time = async (call: (i: number) => Promise<void>) => {
      const latencies: number[] = []
      for (let i = 0; i < WARMUP + ROUNDS * CALLS; i++) {
        const began = performance.now()
        await call(i)
        if (i >= WARMUP) latencies.push(performance.now() - began)
      }
      return median(latencies)
    }
    const commits = internals(toolbelt).store.journal.commits
    const read = await time(async (i) => {
      const result = await toolbelt.call({
        tool: "read",
        input: { filePath: paths[i % 4] },
        sessionID: "ses_bench",
      })
      if (result.status !== "completed" || !result.output.includes(last))
        throw new Error("in-process read failed")
    })
    const readCommits = (internals(toolbelt).store.journal.commits - commits) / (WARMUP + ROUNDS * CALLS)
    const noop = await time(async (i) => {
      await toolbelt.call({ tool: "noop", input: { n: i }, sessionID: "ses_bench_noop" })
    })
    return { read, commits: readCommits, noop }
  } finally {
    toolbelt.close()
  }
}

function side(name: string, client: Client, tool: string, variants: Record<string, unknown>[]): Side {
  return { name, client, tool, variants, turn: 0, latencies: [], timeMs: 0 }
}

/** One call on `each`, the next of its argument variants; the answer's text. */
async function callSide(each: Side): Promise<string> {
  const args = each.variants[each.turn++ % each.variants.length]!
  const result = await each.client.callTool({ name: each.tool, arguments: args })
  if (result.isError) throw new Error(`${each.name} ${each.tool} failed: ${JSON.stringify(result.content)}`)
  return (result.content as { type: string; text?: string }[]).map((block) => block.text ?? "").join("\n")
}

export function report(results: Record<string, number>): void {
  for (const [key, value] of Object.entries(results)) console.log(`  ${key.padEnd(40)} ${value.toFixed(2)}`)
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) report(await run())
