// batch against the same calls one after another: 25 reads of 25 files (200 lines each) through the
// whole call path of a toolbelt on a temp project with its store on disk (every call recorded, its
// record durable before the answer): one batch call, against 25 calls awaited in turn. Each round is
// a new session (the same reads again in one session would be a loop the guard asks about).
// Medians in ms, and the ratio. Run: node bench/batch.bench.ts
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { createToolbelt, type Toolbelt } from "../src/compose/toolbelt.ts"
import { median } from "./lib/measure.ts"

const CALLS = 25
const LINES = 200
const WARMUP = 3
const ROUNDS = 20

export interface BatchResults {
  sequential_ms: number
  batch_ms: number
  /** How many times faster the batch answered than the calls in turn. */
  speedup: number
}

export async function run(): Promise<BatchResults> {
  const root = await mkdtemp(join(tmpdir(), "toolbelt-bench-batch-"))
  const project = join(root, "project")
  await mkdir(join(project, ".git"), { recursive: true })
  const files = Array.from({ length: CALLS }, (_, i) => `src/file-${i}.ts`)
  await mkdir(join(project, "src"))
  for (const [i, file] of files.entries()) {
    const lines = Array.from(
      { length: LINES },
      (_, line) => `export const value${i}_${line} = ${line} // file ${i}`,
    )
    await writeFile(join(project, file), `${lines.join("\n")}\n`)
  }
  const toolbelt = await createToolbelt({
    directory: project,
    dataDir: join(root, "data"),
    config: { batch: true },
    mcp: false,
    customTools: false,
    sweep: false,
    env: { HOME: join(root, "home"), PATH: process.env.PATH },
  })
  try {
    let session = 0
    const sequential = async () => {
      const sessionID = `ses_seq_${session++}`
      for (const file of files)
        expectCompleted(await toolbelt.call({ tool: "read", input: { filePath: file }, sessionID }))
    }
    const batch = async () => {
      const sessionID = `ses_batch_${session++}`
      const tool_calls = files.map((file) => ({ tool: "read", parameters: { filePath: file } }))
      const result = await toolbelt.call({ tool: "batch", input: { tool_calls }, sessionID })
      expectCompleted(result)
      if (result.status === "completed" && result.metadata.succeeded !== CALLS)
        throw new Error(`batch ran ${String(result.metadata.succeeded)} of ${CALLS} calls`)
    }
    const sequential_ms = await time(sequential)
    const batch_ms = await time(batch)
    return { sequential_ms, batch_ms, speedup: sequential_ms / batch_ms }
  } finally {
    await toolbelt.close()
    await rm(root, { recursive: true, force: true })
  }
}

/** The median of ROUNDS runs after WARMUP, in ms. */
async function time(round: () => Promise<void>): Promise<number> {
  for (let i = 0; i < WARMUP; i++) await round()
  const samples: number[] = []
  for (let i = 0; i < ROUNDS; i++) {
    const start = process.hrtime.bigint()
    await round()
    samples.push(Number(process.hrtime.bigint() - start) / 1e6)
  }
  return median(samples)
}

function expectCompleted(result: Awaited<ReturnType<Toolbelt["call"]>>): void {
  if (result.status !== "completed") throw new Error(`bench call failed: ${result.error}`)
}

export function report(r: BatchResults): void {
  console.log(`${CALLS} reads of ${LINES}-line files through a toolbelt (store on disk), median of ${ROUNDS}`)
  console.log(`  one after another   ${r.sequential_ms.toFixed(1)} ms`)
  console.log(`  one batch           ${r.batch_ms.toFixed(1)} ms`)
  console.log(`  batch is ${r.speedup.toFixed(2)}× as fast`)
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) report(await run())
