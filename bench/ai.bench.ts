// The AI SDK adapter: what a tool call costs inside a mock-model streamText loop (adapter, stream
// processor and settlement) against the same loop with a bare AI SDK tool calling toolbelt.call, and
// against toolbelt.call alone; and how many tool parts per second the stream processor persists.
// The loops use an in-memory store, so they measure code, not the disk. Run: node bench/ai.bench.ts
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { isStepCount, jsonSchema, streamText, type TextStreamPart, type ToolSet, tool } from "ai"
import { z } from "zod"
import { Calls } from "../src/adapters/ai/calls.ts"
import { call, scripted, step, text } from "../src/adapters/ai/fixtures/mock-model.ts"
import { StreamProcessor } from "../src/adapters/ai/processor.ts"
import { toAISDKTools } from "../src/adapters/ai/tools.ts"
import { internals } from "../src/compose/internals.ts"
import { createToolbelt, type Toolbelt } from "../src/compose/toolbelt.ts"
import * as Tool from "../src/runtime/tool/index.ts"

const STEPS = 10
const CALLS_PER_STEP = 50
const ROUNDS = 7
const DIRECT_CALLS = 2_000
const PROCESSOR_CALLS = 5_000

export interface AIResults {
  direct_call_us: number
  sdk_loop_call_us: number
  adapter_loop_call_us: number
  adapter_overhead_us: number
  processor_parts_per_s: number
  processor_parts_per_s_memory: number
}

/** A toolbelt with one trivial tool; `memory` keeps the store in memory (CPU cost only). */
async function open(dir: string, memory: boolean): Promise<Toolbelt> {
  const toolbelt = await createToolbelt({
    directory: dir,
    dataDir: join(dir, ".data"),
    sweep: false,
    ...(memory ? { store: "memory" as const } : {}),
    config: { permission: { doom_loop: "allow" } },
    env: { PATH: process.env.PATH, HOME: dir },
  })
  toolbelt.register({
    add: Tool.make({
      description: "adds one",
      input: z.object({ a: z.number() }),
      execute: ({ a }) => String(a + 1),
    }),
  })
  return toolbelt
}

let unique = 0

/** A model that makes CALLS_PER_STEP calls of `add` in each of STEPS steps, then answers. */
function model() {
  const steps = Array.from({ length: STEPS }, () =>
    step(...Array.from({ length: CALLS_PER_STEP }, () => call(`c${unique}`, "add", { a: unique++ }))),
  )
  return scripted([...steps, step(text("done"))])
}

const elapsedUs = (startNs: bigint) => Number(process.hrtime.bigint() - startNs) / 1000
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

/** µs per tool call of one whole loop: STEPS × CALLS_PER_STEP calls (each step's calls run together). */
async function bareLoop(toolbelt: Toolbelt): Promise<number> {
  const sessionID = `ses_sdk_${unique}`
  const tools: ToolSet = {
    add: tool({
      inputSchema: jsonSchema<{ a: number }>({ type: "object", properties: { a: { type: "number" } } }),
      execute: async (input, options) => {
        const result = await toolbelt.call({ tool: "add", input, sessionID, callID: options.toolCallId })
        if (result.status !== "completed") throw new Error(result.error)
        return result.output
      },
    }),
  }
  const start = process.hrtime.bigint()
  await streamText({ model: model(), tools, stopWhen: isStepCount(STEPS + 1), prompt: "go" }).consumeStream()
  return elapsedUs(start) / (STEPS * CALLS_PER_STEP)
}

async function adapterLoop(toolbelt: Toolbelt): Promise<number> {
  const start = process.hrtime.bigint()
  const ai = await toAISDKTools({
    toolbelt,
    sessionID: `ses_adapter_${unique}`,
    messageID: "msg_adapter",
    model: { providerID: "mock", modelID: "mock" },
  })
  const result = streamText({
    model: ai.wrap(model()),
    tools: ai.tools,
    repairToolCall: ai.repairToolCall,
    stopWhen: [isStepCount(STEPS + 1), ai.stopWhen],
    prompt: "go",
  })
  const processed = await new StreamProcessor({ toolbelt, tools: ai }).consume(result.stream)
  const us = elapsedUs(start) / (STEPS * CALLS_PER_STEP)
  if (processed.parts.filter((part) => part.state.status === "completed").length !== STEPS * CALLS_PER_STEP)
    throw new Error("adapter loop: not every call completed")
  return us
}

/**
 * Calls streamed and finished by the provider (never dispatched), so the processor persists every
 * state itself: the pending part (once per event-loop turn) and the completed one (journal). Each
 * call arrives in its own turn of the event loop, as from a network stream.
 */
async function processorThroughput(toolbelt: Toolbelt): Promise<number> {
  const tools = {
    calls: new Calls(),
    sessionID: `ses_processor_${unique++}`,
    messageID: "msg",
    activeTools: ["add"],
  }
  const processor = new StreamProcessor({ toolbelt, tools })
  const parts = function* (): Generator<TextStreamPart<ToolSet>> {
    for (let i = 0; i < PROCESSOR_CALLS; i++) {
      const id = `p${i}`
      const input = { a: i }
      yield { type: "tool-input-start", id, toolName: "add" }
      yield { type: "tool-input-delta", id, delta: '{"a":' }
      yield { type: "tool-input-delta", id, delta: `${i}}` }
      yield { type: "tool-input-end", id }
      yield { type: "tool-call", toolCallId: id, toolName: "add", input } as TextStreamPart<ToolSet>
      yield {
        type: "tool-result",
        toolCallId: id,
        toolName: "add",
        input,
        output: String(i + 1),
      } as TextStreamPart<ToolSet>
    }
  }
  const start = process.hrtime.bigint()
  for (const part of parts()) {
    await processor.handle(part)
    // As from a provider: each call's parts arrive in a turn of the event loop of their own.
    if (part.type === "tool-result") await new Promise((resolve) => setImmediate(resolve))
  }
  await processor.finish()
  const seconds = elapsedUs(start) / 1e6
  const stored = internals(toolbelt)
    .store.parts.list(tools.sessionID)
    .filter((part) => part.state.status === "completed")
  if (stored.length !== PROCESSOR_CALLS) throw new Error(`processor stored ${stored.length} parts`)
  return Math.round(PROCESSOR_CALLS / seconds)
}

export async function run(): Promise<AIResults> {
  const dir = await mkdtemp(join(tmpdir(), "toolbelt-bench-ai-"))
  const memory = await open(dir, true)
  const file = await open(dir, false)
  try {
    // 1. toolbelt.call directly (in-memory store: the cost of the code, not of the disk).
    for (let i = 0; i < 200; i++) await memory.call({ tool: "add", input: { a: i }, sessionID: "ses_warm" })
    const direct: number[] = []
    for (let i = 0; i < DIRECT_CALLS; i++) {
      const start = process.hrtime.bigint()
      const result = await memory.call({
        tool: "add",
        input: { a: i },
        sessionID: "ses_direct",
        callID: `d${i}`,
      })
      direct.push(elapsedUs(start))
      if (result.status !== "completed") throw new Error(JSON.stringify(result))
    }

    // 2./3. The same calls in a streamText loop: a bare AI SDK tool calling toolbelt.call, and the
    // adapter (toAISDKTools, repair, wrapped model, stream processor). Alternating rounds, medians.
    await bareLoop(memory)
    await adapterLoop(memory)
    const bare: number[] = []
    const adapter: number[] = []
    for (let round = 0; round < ROUNDS; round++) {
      bare.push(await bareLoop(memory))
      adapter.push(await adapterLoop(memory))
    }

    // 4. Processor throughput, with the store on disk and in memory.
    const processorFile = await processorThroughput(file)
    const processorMemory = await processorThroughput(memory)

    return {
      direct_call_us: median(direct),
      sdk_loop_call_us: median(bare),
      adapter_loop_call_us: median(adapter),
      adapter_overhead_us: median(adapter) - median(bare),
      processor_parts_per_s: processorFile,
      processor_parts_per_s_memory: processorMemory,
    }
  } finally {
    memory.close()
    file.close()
    await rm(dir, { recursive: true, force: true })
  }
}

export function report(results: AIResults): void {
  console.log(`  toolbelt.call directly            ${results.direct_call_us.toFixed(1)} µs/call (median)`)
  console.log(`  streamText loop, bare SDK tool    ${results.sdk_loop_call_us.toFixed(1)} µs/call`)
  console.log(`  streamText loop, toAISDKTools     ${results.adapter_loop_call_us.toFixed(1)} µs/call`)
  console.log(`  adapter + processor overhead      ${results.adapter_overhead_us.toFixed(1)} µs/call`)
  console.log(`  processor, parts persisted        ${results.processor_parts_per_s} parts/s (store on disk)`)
  console.log(
    `  processor, parts persisted        ${results.processor_parts_per_s_memory} parts/s (store in memory)`,
  )
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) report(await run())
