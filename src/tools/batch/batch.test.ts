// batch in a real toolbelt: every call through the whole settlement pipeline, on real files and processes.
import { mkdir, readFile, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { z } from "zod"
import { type TempProject, tempProject } from "../../compose/fixtures/temp-project.ts"
import { internals } from "../../compose/internals.ts"
import type { Toolbelt, ToolbeltOptions } from "../../compose/toolbelt.ts"
import type { AskRequest } from "../../runtime/permission/service.ts"
import type { Settlement } from "../../runtime/settle/settle.ts"
import * as Tool from "../../runtime/tool/index.ts"
import { services } from "../../runtime/tool/services.ts"
import { completed, failed } from "../kit/fixtures/harness.ts"
import { MAX_CALLS } from "./batch.ts"

let temp: TempProject
let project: string
let outside: string

beforeEach(async () => {
  temp = await tempProject("toolbelt-batch-")
  project = temp.project
  outside = join(temp.root, "outside")
  await mkdir(outside)
})

afterEach(() => temp.remove())

/** A toolbelt with batch turned on (and `config` merged in). */
function toolbelt(options: Omit<ToolbeltOptions, "directory" | "env"> = {}): Promise<Toolbelt> {
  return temp.toolbelt({ ...options, config: { batch: true, ...options.config } })
}

const call = (tool: string, parameters: Record<string, unknown>) => ({ tool, parameters })

interface Entry {
  n: number
  tool: string
  status: string
  callID?: string
  title?: string
  error?: string
}
const entries = (result: Settlement) => completed(result).metadata.calls as Entry[]

describe("a batch of 25 mixed calls", () => {
  it("settles each as its own call: its own ask, record and answer; a conflict and a denial stay the call's own", async () => {
    for (let i = 1; i <= 8; i++) await writeFile(join(project, `file-${i}.txt`), `content of file ${i}\n`)
    await writeFile(join(project, "shared.txt"), "alpha\nbeta\ngamma\n")
    await writeFile(join(project, "regions.txt"), "one\ntwo\nthree\n")
    await writeFile(join(outside, "notes.txt"), "outside the project\n")
    const asks: AskRequest[] = []
    const tb = await toolbelt({
      config: { permission: { bash: { "*": "allow", "rm *": "deny" } } },
      decide: async (request) => {
        asks.push(request)
        return "once"
      },
    })
    const tool_calls = [
      ...Array.from({ length: 8 }, (_, i) => call("read", { filePath: `file-${i + 1}.txt` })),
      call("glob", { pattern: "*.txt" }),
      call("grep", { pattern: "content of" }),
      call("list", {}),
      call("write", { filePath: "new.txt", content: "written by the batch\n" }),
      // The edit conflict: both replace the same text; the file lock serialises them, one wins.
      call("edit", { filePath: "shared.txt", oldString: "beta", newString: "BETA-1" }),
      call("edit", { filePath: "shared.txt", oldString: "beta", newString: "BETA-2" }),
      // Two edits of different lines of one file: both apply.
      call("edit", { filePath: "regions.txt", oldString: "one", newString: "ONE" }),
      call("edit", { filePath: "regions.txt", oldString: "three", newString: "THREE" }),
      call("bash", { command: "echo from-bash", description: "Print a word" }),
      // The denial: a configured rule.
      call("bash", { command: "rm -rf build", description: "Remove build" }),
      // An ask that a person answers, for this call alone.
      call("read", { filePath: join(outside, "notes.txt") }),
      call("read", { filePath: "missing.txt" }),
      call("read", { path: "wrong-parameter.txt" }),
      call("no_such_tool", {}),
      call("READ", { filePath: "file-1.txt" }),
      call("glob", { pattern: "**/*.md" }),
      call("grep", { pattern: "alpha", include: "*.txt" }),
    ]
    expect(tool_calls).toHaveLength(25)

    const result = await tb.call({
      tool: "batch",
      input: { tool_calls },
      sessionID: "ses_batch",
      callID: "call_b",
    })
    const calls = entries(result)
    const status = (n: number) => calls[n - 1]!.status
    const error = (n: number) => calls[n - 1]!.error ?? ""

    // Each call ran on its own and says how it ended, in order.
    expect(calls.map((each) => each.n)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1))
    for (const n of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 15, 16, 17, 19, 23, 24, 25])
      expect(status(n)).toBe("completed")
    const conflict = [status(13), status(14)].sort()
    expect(conflict).toEqual(["completed", "error"])
    expect(error(calls[12]!.status === "error" ? 13 : 14)).toContain("Could not find oldString")
    expect(status(18)).toBe("error")
    expect(error(18)).toContain(
      "The user has specified a rule which prevents you from using this specific tool call",
    )
    expect(status(20)).toBe("error")
    expect(error(20)).toContain("missing.txt")
    expect(status(21)).toBe("error")
    expect(error(21)).toContain("The read tool was called with invalid arguments")
    expect(status(22)).toBe("skipped")
    expect(error(22)).toMatch(/^Tool 'no_such_tool' is not available to batch\. Available tools: .*\bread\b/)
    expect(calls[22]!.tool).toBe("read")
    expect(result.status === "completed" && result.title).toBe("Batch execution (20/25 successful)")

    // The files: one edit of the conflict won, both region edits applied, the write landed.
    const shared = await readFile(join(project, "shared.txt"), "utf8")
    expect(["alpha\nBETA-1\ngamma\n", "alpha\nBETA-2\ngamma\n"]).toContain(shared)
    expect(await readFile(join(project, "regions.txt"), "utf8")).toBe("ONE\ntwo\nTHREE\n")
    expect(await readFile(join(project, "new.txt"), "utf8")).toBe("written by the batch\n")

    // Each call that ran is its own part in the journal, under <batch call id>.<n>, with its own state.
    const parts = new Map(
      internals(tb)
        .store.parts.list("ses_batch")
        .map((part) => [part.callID, part]),
    )
    expect(parts.get("call_b")?.state.status).toBe("completed")
    for (const entry of calls) {
      const part = parts.get(`call_b.${entry.n}`)
      if (entry.status === "skipped") expect(part).toBeUndefined()
      else {
        expect(entry.callID).toBe(`call_b.${entry.n}`)
        expect(part?.tool).toBe(entry.tool)
        expect(part?.state.status).toBe(entry.status)
      }
    }
    expect(parts.size).toBe(1 + 24)

    // The one ask a person answered was the outside read's, made by that call.
    expect(asks.map((ask) => [ask.permission, ask.tool?.callID])).toEqual([
      ["external_directory", "call_b.19"],
    ])

    // The model reads every call's answer: the summary first, then each call in order.
    const { output } = completed(result)
    expect(output.split("\n")[0]).toMatch(
      /^20\/25 calls completed; 5 failed \(#1[34] edit, #18 bash, #20 read, #21 read, #22 no_such_tool\)\.$/,
    )
    expect(output).toContain('<call n="1" tool="read" status="completed" title="file-1.txt">')
    expect(output).toContain("content of file 8")
    expect(output).toContain('<call n="17" tool="bash" status="completed"')
    expect(output).toContain("from-bash")
  })
})

describe("what batch refuses", () => {
  it("runs the first 25 calls; the rest are errors", async () => {
    // Distinct calls: 25 identical ones would be a loop, which the loop guard asks about.
    for (let i = 1; i <= MAX_CALLS + 2; i++) await writeFile(join(project, `f${i}.txt`), `${i}\n`)
    const tb = await toolbelt()
    const tool_calls = Array.from({ length: MAX_CALLS + 2 }, (_, i) =>
      call("read", { filePath: `f${i + 1}.txt` }),
    )
    const result = await tb.call({
      tool: "batch",
      input: { tool_calls },
      sessionID: "ses_many",
      callID: "call_m",
    })
    const calls = entries(result)
    expect(calls.slice(0, 25).every((each) => each.status === "completed")).toBe(true)
    const beyond = {
      tool: "read",
      status: "skipped",
      error: "Maximum of 25 tools allowed in batch; this call was not run.",
    }
    expect(calls.slice(25)).toEqual([
      { n: 26, ...beyond },
      { n: 27, ...beyond },
    ])
    expect(internals(tb).store.parts.list("ses_many")).toHaveLength(1 + 25)
  })

  it("does not nest: batch inside batch is refused, and a call made by a batch gets no calls of its own", async () => {
    const tb = await toolbelt()
    tb.register({
      probe: Tool.make({
        description: "Says whether it may make calls on its behalf.",
        input: z.object({}),
        execute: (_input, ctx) => (services(ctx).calls ? "may make calls" : "may not make calls"),
      }),
    })
    expect(completed(await tb.call({ tool: "probe", input: {} })).output).toBe("may make calls")
    const result = await tb.call({
      tool: "batch",
      input: { tool_calls: [call("batch", { tool_calls: [call("probe", {})] }), call("probe", {})] },
    })
    const [nested, probe] = entries(result)
    expect(nested).toMatchObject({
      status: "skipped",
      error: "batch cannot be nested: put these calls in this batch instead.",
    })
    expect(probe).toMatchObject({ status: "completed" })
    expect(completed(result).output).toContain("may not make calls")
  })

  it("names the tools it can run when one is unknown (not batch itself)", async () => {
    const tb = await toolbelt()
    const [unknown] = entries(
      await tb.call({ tool: "batch", input: { tool_calls: [call("fetch_url", {})] } }),
    )
    const listed = /Available tools: (.*)\.$/.exec(unknown!.error ?? "")![1]!.split(", ")
    expect(listed).toContain("read")
    expect(listed).toContain("bash")
    expect(listed).not.toContain("batch")
    expect(listed).not.toContain("invalid")
    expect(listed).toEqual([...listed].sort())
  })

  it("runs only what the caller's turn offered: a tool left out of the turn is unknown to the batch", async () => {
    const tb = await toolbelt()
    const turn = internals(tb).registry.turn((await tb.tools()).filter((tool) => tool.name !== "bash"))
    const [shell] = entries(
      await tb.call({
        tool: "batch",
        turn,
        input: { tool_calls: [call("bash", { command: "echo x", description: "x" })] },
      }),
    )
    expect(shell).toMatchObject({ status: "skipped" })
    expect(shell!.error).not.toMatch(/Available tools: .*\bbash\b/)
  })

  it("shows the expected payload when its own arguments are wrong", async () => {
    const tb = await toolbelt()
    for (const input of [{}, { tool_calls: [] }, { tool_calls: [{ tool: "read" }] }]) {
      const error = failed(await tb.call({ tool: "batch", input })).error
      expect(error).toMatch(/^The batch tool was called with invalid arguments: tool_calls/)
      expect(error).toContain(
        'Expected payload format:\n  {"tool_calls": [{"tool": "<tool name>", "parameters": {<that tool\'s arguments>}}, ...]}',
      )
    }
  })
})

describe("where batch is offered", () => {
  it("only when the config turns it on", async () => {
    const off = await toolbelt({ config: { batch: false } })
    expect((await off.tools()).map((tool) => tool.name)).not.toContain("batch")
    // The reason names both switches: toolbelt's own and opencode's, which the spec writes.
    const reason = (await off.withheld()).find((tool) => tool.name === "batch")?.reason
    expect(reason).toContain('"batch": true')
    expect(reason).toContain('"experimental": {"batch_tool": true}')
    const on = await toolbelt()
    expect((await on.tools()).map((tool) => tool.name)).toContain("batch")
  })
})

describe("each call is bounded, asked and stopped as its own", () => {
  it("bounds each call's output by itself: the full text of a long one is kept for reading", async () => {
    const tb = await toolbelt()
    const result = await tb.call({
      tool: "batch",
      sessionID: "ses_bound",
      callID: "call_long",
      input: {
        tool_calls: [
          call("bash", { command: "seq 1 5000", description: "Count" }),
          call("bash", { command: "echo short", description: "Echo" }),
        ],
      },
    })
    const [long, short] = entries(result)
    expect(long).toMatchObject({ status: "completed" })
    const part = internals(tb).store.parts.get("ses_bound", "call_long.1")
    const state = part?.state as { metadata: { truncated?: boolean; outputPath?: string } }
    expect(state.metadata.truncated).toBe(true)
    expect(await readFile(state.metadata.outputPath!, "utf8")).toContain("\n5000")
    // Each got half of 90% of the bounds, so both answers reach the model whole in the batch's result.
    const output = completed(result).output
    expect(output).toContain("Full output saved to:")
    expect(output).toContain('<call n="2" tool="bash" status="completed"')
    expect(output).toContain("short")
    expect(completed(result).metadata.truncated).toBe(false)
    expect(short).toMatchObject({ status: "completed" })
  })

  it("stops the turn when a person refuses one call, once the others are done", async () => {
    await writeFile(join(outside, "x.txt"), "x\n")
    await writeFile(join(project, "a.txt"), "a\n")
    const tb = await toolbelt({ decide: async () => "reject" })
    const result = failed(
      await tb.call({
        tool: "batch",
        sessionID: "ses_no",
        callID: "call_no",
        input: {
          tool_calls: [
            call("read", { filePath: join(outside, "x.txt") }),
            call("read", { filePath: "a.txt" }),
          ],
        },
      }),
    )
    expect(result).toMatchObject({ kind: "permission", blocked: true })
    expect(result.error).toBe("The user rejected permission to use this specific tool call.")
    expect(internals(tb).store.parts.get("ses_no", "call_no.1")?.state.status).toBe("error")
    expect(internals(tb).store.parts.get("ses_no", "call_no.2")?.state.status).toBe("completed")
  })

  it("stops the turn as unanswered when no one could be asked about a call", async () => {
    await writeFile(join(outside, "x.txt"), "x\n")
    const tb = await toolbelt({ decide: async () => ({ unanswered: "no terminal to ask on" }) })
    const result = failed(
      await tb.call({
        tool: "batch",
        input: { tool_calls: [call("read", { filePath: join(outside, "x.txt") })] },
      }),
    )
    expect(result).toMatchObject({ kind: "permission", blocked: true })
    expect(result.error).toBe(
      "This call needs a person's approval and no one could be asked, so it did not run: no terminal to ask on",
    )
  })

  it("cancels every call when the batch is aborted", async () => {
    const running = new Set<string>()
    const tb = await toolbelt({
      parts: (part) => {
        if (part.state.status === "running" && part.tool === "bash") running.add(part.callID)
      },
    })
    const abort = new AbortController()
    const started = Date.now()
    const settled = tb.call({
      tool: "batch",
      sessionID: "ses_abort",
      callID: "call_a",
      abort: abort.signal,
      input: {
        tool_calls: [1, 2, 3].map((n) =>
          call("bash", { command: `sleep 60; echo ${n}`, description: "Sleep" }),
        ),
      },
    })
    while (running.size < 3) await new Promise((resolve) => setTimeout(resolve, 10))
    abort.abort()
    const result = failed(await settled)
    expect(result.kind).toBe("interrupted")
    // The calls end as interrupted too, each in its own record, long before the sleeps would.
    for (let waited = 0; waited < 5_000; waited += 20) {
      const done = [1, 2, 3].every(
        (n) => internals(tb).store.parts.get("ses_abort", `call_a.${n}`)?.state.status === "error",
      )
      if (done) break
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    for (const n of [1, 2, 3]) {
      const state = internals(tb).store.parts.get("ses_abort", `call_a.${n}`)?.state as {
        status: string
        metadata?: { interrupted?: boolean }
      }
      expect(state.status).toBe("error")
      expect(state.metadata?.interrupted).toBe(true)
    }
    expect(Date.now() - started).toBeLessThan(60_000)
  })
})
