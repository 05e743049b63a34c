// task: what a subagent round trip costs on top of the model's own work. The same mock model answers
// every call at once, so what is measured is toolbelt's code: the child session (its row and derived
// rules), the child's turn (tools for it, replay of its history when resumed), the result and the
// parts of both sessions. In-memory store (code, not disk). Run: node bench/task.bench.ts
//
// 1. bare: one runTurn whose model answers in text (one model call).
// 2. tool: one runTurn whose model calls a trivial tool, then answers (two model calls).
// 3. task: one runTurn whose model starts a general subagent, which answers in text, then answers
//    (three model calls, two turns). Its overhead is task − tool − bare: what delegating adds beyond
//    the subagent's own turn.
// 4. resume: the same through task_id, the child session holding HISTORY earlier exchanges to replay.
// Each is timed per round trip; medians of ROUNDS rounds of CALLS each, the kinds taking turns.
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { z } from "zod"
import { call, step, text } from "../src/adapters/ai/fixtures/mock-model.ts"
import { runTurn } from "../src/adapters/ai/loop.ts"
import { internals } from "../src/compose/internals.ts"
import { createToolbelt, type Toolbelt } from "../src/compose/toolbelt.ts"
import * as Tool from "../src/runtime/tool/index.ts"
import { routedModel } from "../src/tools/task/fixtures/routed-model.ts"
import { median } from "./lib/measure.ts"

const ROUNDS = 7
const CALLS = 40
const HISTORY = 20
const ids = { providerID: "mock", modelID: "mock-model" }

export interface TaskResults {
  bare_turn_us: number
  tool_turn_us: number
  task_turn_us: number
  task_overhead_us: number
  resume_turn_us: number
  resume_overhead_us: number
}

let unique = 0

const brief = (extra: Record<string, unknown> = {}) => ({
  description: "answer",
  prompt: "Say done.",
  subagent_type: "general",
  ...extra,
})

/** One turn of `runTurn` on `scripts` (see routedModel), timed; it must finish. */
async function turn(
  toolbelt: Toolbelt,
  scripts: Parameters<typeof routedModel>[0],
  options: { sessionID: string; prompt?: string; agent?: string },
): Promise<number> {
  const start = process.hrtime.bigint()
  const result = await runTurn({
    toolbelt,
    model: { ...ids, model: routedModel(scripts) },
    prompt: options.prompt ?? "go",
    sessionID: options.sessionID,
    ...(options.agent ? { agent: options.agent } : {}),
  })
  const us = Number(process.hrtime.bigint() - start) / 1000
  if (result.status !== "finished") throw new Error(`the turn ended ${result.status}`)
  return us
}

const bare = (toolbelt: Toolbelt) =>
  turn(toolbelt, { parent: [step(text("done"))] }, { sessionID: `ses_bare_${unique++}` })

const tool = (toolbelt: Toolbelt) =>
  turn(
    toolbelt,
    { parent: [step(call("n1", "noop", {})), step(text("done"))] },
    { sessionID: `ses_tool_${unique++}` },
  )

const task = (toolbelt: Toolbelt, sessionID = `ses_task_${unique++}`, extra: Record<string, unknown> = {}) =>
  turn(
    toolbelt,
    {
      parent: [step(call(`t${unique++}`, "task", brief(extra))), step(text("done"))],
      child: [step(text("done"))],
    },
    { sessionID },
  )

/** A parent session whose child holds HISTORY exchanges; returns the ids to resume it. */
async function withHistory(toolbelt: Toolbelt): Promise<{ parent: string; child: string }> {
  const parent = `ses_resume_${unique++}`
  await task(toolbelt, parent)
  const child = internals(toolbelt).store.sessions.list({ parentID: parent })[0]!.id
  for (let i = 1; i < HISTORY; i++)
    await turn(
      toolbelt,
      { parent: [step(call(`n${i}`, "noop", {})), step(text(`answer ${i}`))] },
      { sessionID: child, prompt: `more ${i}`, agent: "general" },
    )
  return { parent, child }
}

const resume = (toolbelt: Toolbelt, target: { parent: string; child: string }) =>
  task(toolbelt, target.parent, { task_id: target.child })

export async function run(): Promise<TaskResults> {
  const dir = await mkdtemp(join(tmpdir(), "toolbelt-bench-task-"))
  const toolbelt = await createToolbelt({
    directory: dir,
    dataDir: join(dir, ".data"),
    store: "memory",
    sweep: false,
    config: { permission: { doom_loop: "allow" } },
    env: { PATH: process.env.PATH, HOME: dir },
  })
  toolbelt.register({
    noop: Tool.make({ description: "Does nothing.", input: z.object({}), execute: () => "ok" }),
  })
  try {
    // Warm up every path once.
    await bare(toolbelt)
    await tool(toolbelt)
    await task(toolbelt)
    const target = await withHistory(toolbelt)
    await resume(toolbelt, target)

    const samples = {
      bare: [] as number[],
      tool: [] as number[],
      task: [] as number[],
      resume: [] as number[],
    }
    for (let round = 0; round < ROUNDS; round++) {
      const per = { bare: 0, tool: 0, task: 0, resume: 0 }
      for (let i = 0; i < CALLS; i++) {
        per.bare += await bare(toolbelt)
        per.tool += await tool(toolbelt)
        per.task += await task(toolbelt)
        per.resume += await resume(toolbelt, await withHistory(toolbelt))
      }
      for (const kind of ["bare", "tool", "task", "resume"] as const) samples[kind].push(per[kind] / CALLS)
    }
    const results = {
      bare_turn_us: median(samples.bare),
      tool_turn_us: median(samples.tool),
      task_turn_us: median(samples.task),
      resume_turn_us: median(samples.resume),
    }
    return {
      ...results,
      task_overhead_us: results.task_turn_us - results.tool_turn_us - results.bare_turn_us,
      resume_overhead_us: results.resume_turn_us - results.tool_turn_us - results.bare_turn_us,
    }
  } finally {
    await toolbelt.close()
    await rm(dir, { recursive: true, force: true })
  }
}

export function report(results: TaskResults): void {
  const us = (value: number) => `${Math.round(value)} µs`
  console.log(`  bare runTurn (1 model call)            ${us(results.bare_turn_us)}`)
  console.log(`  runTurn with one tool call (2 calls)   ${us(results.tool_turn_us)}`)
  console.log(`  runTurn with a task (3 calls, 2 turns) ${us(results.task_turn_us)}`)
  console.log(`  task overhead (task − tool − bare)     ${us(results.task_overhead_us)}`)
  console.log(`  resumed task, ${HISTORY} exchanges to replay ${us(results.resume_turn_us)}`)
  console.log(`  resume overhead (resume − tool − bare) ${us(results.resume_overhead_us)}`)
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) report(await run())
