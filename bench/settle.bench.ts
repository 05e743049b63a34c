// Settlement overhead: one trivial tool called through the whole pipeline, against calling the
// same function directly. Run: node bench/settle.bench.ts
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { z } from "zod"
import { DEFAULT_LIMITS } from "../src/platform/text/limits.ts"
import { OutputStore } from "../src/runtime/output/store.ts"
import { RulePermissions } from "../src/runtime/permission/simple.ts"
import { Registry } from "../src/runtime/registry/registry.ts"
import { settle } from "../src/runtime/settle/settle.ts"
import * as Tool from "../src/runtime/tool/index.ts"

const CALLS = 50_000
const WARMUP = 5_000

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!
}

export interface SettleResults {
  direct_median_us: number
  direct_p99_us: number
  settle_median_us: number
  settle_p99_us: number
  overhead_median_us: number
  overhead_p99_us: number
}

export async function run(): Promise<SettleResults> {
  const dir = await mkdtemp(join(tmpdir(), "toolbelt-bench-settle-"))
  const add = ({ a }: { a: number }) => String(a + 1)
  const registry = new Registry()
  registry.register({
    add: Tool.make({ description: "adds one", input: z.object({ a: z.number() }), execute: add }),
  })
  const deps = {
    registry,
    permission: new RulePermissions({ rules: [{ permission: "*", pattern: "*", action: "allow" as const }] }),
    store: new OutputStore({ dir }),
    limits: DEFAULT_LIMITS,
  }
  const request = (i: number) => ({
    tool: "add",
    input: { a: i },
    sessionID: "ses_bench",
    messageID: "msg_bench",
    agent: "build",
    callID: `call_${i}`,
  })

  const direct = new Float64Array(CALLS)
  const settled = new Float64Array(CALLS)
  for (let i = 0; i < WARMUP; i++) {
    await add({ a: i })
    await settle(request(i), deps)
  }
  for (let i = 0; i < CALLS; i++) {
    let start = process.hrtime.bigint()
    await add({ a: i })
    direct[i] = Number(process.hrtime.bigint() - start) / 1000
    start = process.hrtime.bigint()
    const result = await settle(request(i), deps)
    settled[i] = Number(process.hrtime.bigint() - start) / 1000
    if (result.status !== "completed") throw new Error(`bench call failed: ${JSON.stringify(result)}`)
  }
  direct.sort()
  settled.sort()
  await rm(dir, { recursive: true, force: true })
  const results = {
    direct_median_us: percentile(direct, 0.5),
    direct_p99_us: percentile(direct, 0.99),
    settle_median_us: percentile(settled, 0.5),
    settle_p99_us: percentile(settled, 0.99),
    overhead_median_us: percentile(settled, 0.5) - percentile(direct, 0.5),
    overhead_p99_us: percentile(settled, 0.99) - percentile(direct, 0.99),
  }
  return results
}

export function report(r: SettleResults): void {
  console.log(`settlement of a trivial tool, ${CALLS} calls (goal: overhead under 20 µs)`)
  console.log(
    `  direct call     median ${r.direct_median_us.toFixed(2)} µs   p99 ${r.direct_p99_us.toFixed(2)} µs`,
  )
  console.log(
    `  through settle  median ${r.settle_median_us.toFixed(2)} µs   p99 ${r.settle_p99_us.toFixed(2)} µs`,
  )
  console.log(
    `  overhead        median ${r.overhead_median_us.toFixed(2)} µs   p99 ${r.overhead_p99_us.toFixed(2)} µs`,
  )
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) report(await run())
