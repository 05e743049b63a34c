// `read` over MCP stdio: toolbelt's server against the reference filesystem server
// (@modelcontextprotocol/server-filesystem's read_text_file), the same file, the same client, one run.
// 1. A temp project with a 400-line source file. toolbelt is given the file's path spelled four ways
//    in turn (absolute, relative, ./relative, absolute through "."): the same file, but not the same
//    call over and over, which the doom-loop guard would rightly stop to ask about.
// 2. Start both servers as subprocesses (`toolbelt mcp --cwd DIR`, `node .../server-filesystem DIR`)
//    and connect the official client to each over stdio.
// 3. Warm up, then take turns: ROUNDS rounds of CALLS sequential calls on each server, so both share
//    the machine's noise. Every answer is checked to hold the file's last line.
//    Two workloads: the same file again and again (the measure), and FILES different files of
//    the same size in turn, more than toolbelt keeps pages of, so every read is a first read of its page.
//    The files are written SETTLED_MS before the first timed call: toolbelt reuses what it derived from
//    a file (its hash, its page) only once the file's last change is that old (see fs/version-cache.ts),
//    and a project's files are rarely written in the two seconds before they are read.
// 4. toolbelt's floor, in the same rounds: a project tool (`.toolbelt/tools/`) that returns the text
//    `read` returned, without touching the file. It costs what every toolbelt call costs (MCP, settle,
//    the journal's two commits with that output, bounding it as any tool's output is) and nothing of
//    the read itself.
// 5. For the split of toolbelt's time, the same calls in this process, without MCP: `read` through
//    `toolbelt.call` (and the journal commits it makes), and a tool that does nothing (the floor of the
//    pipeline: settle and journal).
// Reports calls per second (all timed calls over their total time) and the median latency in ms.
// Run: node bench/mcp.bench.ts
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { z } from "zod"
import { createToolbelt } from "../src/compose/toolbelt.ts"
import { SETTLED_MS } from "../src/platform/fs/version-cache.ts"
import * as Tool from "../src/runtime/tool/index.ts"
import { MAX_PAGES } from "../src/tools/read/page-cache.ts"
import { median } from "./lib/measure.ts"

const ROOT = fileURLToPath(new URL("..", import.meta.url))
const BIN = join(ROOT, "bin", "toolbelt.js")
const REFERENCE = join(ROOT, "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js")
const LINES = 400
const WARMUP = 100
const ROUNDS = 8
const CALLS = 200
/** More files than the read tool keeps pages of (MAX_PAGES), so each read of the cycle misses. */
const FILES = MAX_PAGES * 3

interface Server {
  readonly name: string
  readonly client: Client
  call(): Promise<string>
  readonly latencies: number[]
  timeMs: number
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
  const lines = Array.from(
    { length: LINES },
    (_, i) =>
      `export function step${i}(value: number): number { return value * ${i} + ${i % 7} } // line ${i + 1}`,
  )
  const last = `line ${LINES}`
  await writeFile(file, `${lines.join("\n")}\n`)
  const others = Array.from({ length: FILES }, (_, n) => join(dir, `module${n}.ts`))
  for (const [n, other] of others.entries()) await writeFile(other, `${lines.join("\n")} // ${n}\n`)
  const written = performance.now()

  const clients: Client[] = []
  const connect = async (command: string, args: string[]) => {
    const client = new Client({ name: "bench", version: "1.0.0" })
    await client.connect(new StdioClientTransport({ command, args, env, cwd: dir, stderr: "ignore" }))
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

    const readText = await server("probe", toolbeltClient, "read", [{ filePath: file }]).call()
    await mkdir(join(dir, ".toolbelt", "tools"), { recursive: true })
    await writeFile(
      join(dir, ".toolbelt", "tools", "same_output.mjs"),
      `export default { description: "Returns what read returned.", args: {}, execute: () => ${JSON.stringify(readText)} }\n`,
    )
    const floorClient = await connect(process.execPath, [BIN, "mcp", "--cwd", dir])

    const servers: Server[] = [
      server("toolbelt", toolbeltClient, "read", [
        { filePath: file },
        { filePath: "module.ts" },
        { filePath: "./module.ts" },
        { filePath: `${dir}/./module.ts` },
      ]),
      server("reference", referenceClient, "read_text_file", [{ path: file }]),
      server(
        "toolbelt, files in turn",
        toolbeltClient,
        "read",
        others.map((other) => ({ filePath: other })),
      ),
      server(
        "reference, files in turn",
        referenceClient,
        "read_text_file",
        others.map((other) => ({ path: other })),
      ),
      // Arguments that differ call to call, so the doom-loop guard has nothing to stop.
      server(
        "toolbelt floor",
        floorClient,
        "same_output",
        Array.from({ length: 4 }, (_, n) => ({ n })),
      ),
    ]
    const settling = written + SETTLED_MS + 100 - performance.now()
    if (settling > 0) await new Promise((resolve) => setTimeout(resolve, settling))
    for (const each of servers) {
      const text = await each.call()
      if (!text.includes(last))
        throw new Error(`${each.name} did not return the whole file:\n${text.slice(-300)}`)
      for (let i = 0; i < WARMUP; i++) await each.call()
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const each of servers) {
        const start = performance.now()
        for (let i = 0; i < CALLS; i++) {
          const began = performance.now()
          const text = await each.call()
          each.latencies.push(performance.now() - began)
          if (!text.includes(last)) throw new Error(`${each.name} returned a short answer`)
        }
        each.timeMs += performance.now() - start
      }
    }
    const [ours, reference, oursInTurn, referenceInTurn, floor] = servers as [
      Server,
      Server,
      Server,
      Server,
      Server,
    ]
    const rate = (each: Server) => (each.latencies.length / each.timeMs) * 1000
    const inProcess = await withoutMcp(dir, env, file, last)
    return {
      toolbelt_calls_per_s: rate(ours),
      toolbelt_median_ms: median(ours.latencies),
      reference_calls_per_s: rate(reference),
      reference_median_ms: median(reference.latencies),
      speedup_vs_reference: rate(ours) / rate(reference),
      files_in_turn_toolbelt_calls_per_s: rate(oursInTurn),
      files_in_turn_toolbelt_median_ms: median(oursInTurn.latencies),
      files_in_turn_reference_calls_per_s: rate(referenceInTurn),
      files_in_turn_reference_median_ms: median(referenceInTurn.latencies),
      files_in_turn_speedup: rate(oursInTurn) / rate(referenceInTurn),
      toolbelt_floor_calls_per_s: rate(floor),
      toolbelt_floor_median_ms: median(floor.latencies),
      in_process_read_median_ms: inProcess.read,
      in_process_read_commits_per_call: inProcess.commits,
      in_process_noop_median_ms: inProcess.noop,
    }
  } finally {
    await Promise.all(clients.map((client) => client.close().catch(() => {})))
    await rm(dir, { recursive: true, force: true })
    await rm(home, { recursive: true, force: true })
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
    toolbelt.registry.register({
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
    const commits = toolbelt.store.journal.commits
    const read = await time(async (i) => {
      const result = await toolbelt.call({
        tool: "read",
        input: { filePath: paths[i % 4] },
        sessionID: "ses_bench",
      })
      if (result.status !== "completed" || !result.output.includes(last))
        throw new Error("in-process read failed")
    })
    const readCommits = (toolbelt.store.journal.commits - commits) / (WARMUP + ROUNDS * CALLS)
    const noop = await time(async (i) => {
      await toolbelt.call({ tool: "noop", input: { n: i }, sessionID: "ses_bench_noop" })
    })
    return { read, commits: readCommits, noop }
  } finally {
    toolbelt.close()
  }
}

function server(name: string, client: Client, tool: string, variants: Record<string, unknown>[]): Server {
  let turn = 0
  return {
    name,
    client,
    latencies: [],
    timeMs: 0,
    async call() {
      const args = variants[turn++ % variants.length]!
      const result = await client.callTool({ name: tool, arguments: args })
      if (result.isError) throw new Error(`${name} ${tool} failed: ${JSON.stringify(result.content)}`)
      return (result.content as { type: string; text?: string }[]).map((block) => block.text ?? "").join("\n")
    },
  }
}

export function report(results: Record<string, number>): void {
  for (const [key, value] of Object.entries(results)) console.log(`  ${key.padEnd(34)} ${value.toFixed(2)}`)
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) report(await run())
