// The hint after a truncated result names calls that work: following it, call after call, returns every
// line that was cut, within the reading tool's own page limits (no `limit` larger than a page holds).
import { mkdtemp, readFile, realpath, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { z } from "zod"
import { createToolbelt, type Toolbelt } from "../src/compose/toolbelt.ts"
import * as Tool from "../src/runtime/tool/index.ts"
import { runCli } from "./fixtures/cli.ts"

let home: string
let project: string

beforeEach(async () => {
  home = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-hint-home-")))
  project = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-hint-project-")))
})

afterEach(async () => {
  for (const dir of [home, project]) await rm(dir, { recursive: true, force: true })
})

/** The numbered lines of a read page, and the offset its footer says to continue from. */
function page(output: string): { lines: Map<number, string>; next: number | undefined } {
  const lines = new Map<number, string>()
  for (const match of output.matchAll(/^(\d+): (.*)$/gm)) lines.set(Number(match[1]), match[2]!)
  const next = /Use offset=(\d+) to continue/.exec(output)
  return { lines, next: next ? Number(next[1]) : undefined }
}

/** Every `read {...}` call the hint names, with its arguments. */
function namedCalls(text: string): Record<string, unknown>[] {
  return [...text.matchAll(/read (\{[^}]*\})/g)].map((match) => JSON.parse(match[1]!))
}

/** Lines `from..to` of a saved file, as a reader numbers them. */
async function savedLines(path: string, from: number, to: number): Promise<Map<number, string>> {
  const all = (await readFile(path, "utf8")).split("\n")
  return new Map(all.slice(from - 1, to).map((line, index) => [from + index, line]))
}

describe("a cut result of any tool (head kept): the listed calls return the rest", () => {
  let toolbelt: Toolbelt

  afterEach(async () => {
    await toolbelt?.close()
  })

  it("each listed read fits a page, and together they return every cut line", async () => {
    toolbelt = await createToolbelt({
      directory: project,
      dataDir: join(home, "data"),
      store: "memory",
      config: {},
    })
    // 1,800 lines of varied width (up to 190 bytes): the byte budget, not the line count, bounds pages.
    const text = Array.from({ length: 1800 }, (_, i) => `${i + 1} ${"x".repeat((i * 37) % 190)}`).join("\n")
    toolbelt.register({
      dump: Tool.make({ description: "Prints a lot.", input: z.object({}), execute: () => text }),
    })
    const result = await toolbelt.call({ tool: "dump", input: {} })
    expect(result.status).toBe("completed")
    if (result.status !== "completed") return
    const outputPath = String(result.metadata.outputPath)
    const span = /read lines (\d+)-(\d+)/.exec(result.output)
    expect(span).not.toBeNull()
    const [from, to] = [Number(span![1]), Number(span![2])]
    expect(to).toBe(1800)

    const calls = namedCalls(result.output)
    expect(calls.length).toBeGreaterThan(1)
    const got = new Map<number, string>()
    for (const args of calls) {
      expect(args).toMatchObject({ filePath: outputPath })
      const read = await toolbelt.call({ tool: "read", input: args })
      expect(read.status).toBe("completed")
      if (read.status !== "completed") return
      // The page holds exactly what was asked: never cut short by the byte budget.
      expect(read.output).not.toContain("Output capped at")
      const { lines } = page(read.output)
      expect(lines.size).toBe(args.limit)
      for (const [number, line] of lines) got.set(number, line)
    }
    expect(got).toEqual(await savedLines(outputPath, from, to))
  })
})

describe("which reader the hint sends the model to", () => {
  it("a subagent where task is offered to the call (a turn with a model), read calls where it is not", async () => {
    const toolbelt = await createToolbelt({
      directory: project,
      dataDir: join(home, "data"),
      store: "memory",
    })
    try {
      toolbelt.register({
        dump: Tool.make({
          description: "Prints a lot.",
          input: z.object({}),
          execute: () => "line\n".repeat(5000),
        }),
      })
      const without = await toolbelt.call({ tool: "dump", input: {} })
      expect(without.status === "completed" && without.output).toMatch(/read lines \d+-\d+/)
      expect(without.status === "completed" && without.output).not.toContain("Task tool")
      const model = { providerID: "mock", modelID: "mock-model", model: {} }
      const within = await toolbelt.call({ tool: "dump", input: {}, extra: { model } })
      expect(within.status === "completed" && within.output).toContain(
        "Use the Task tool to have explore agent process this file",
      )
    } finally {
      await toolbelt.close()
    }
  })
})

describe("a command's cut output (tail kept), through the real CLI", () => {
  it("following the named read, then each page's offset, returns every cut line", async () => {
    const call = (tool: string, args: unknown) => {
      const run = runCli(["call", tool, JSON.stringify(args), "--json"], { cwd: project, home })
      expect(run.stderr).toBe("")
      return JSON.parse(run.stdout) as { status: string; output: string; metadata: Record<string, unknown> }
    }
    // 6,000 lines of 40 bytes: the last 50 KB are kept, about 4,700 lines are cut.
    const bash = call("bash", { command: "seq -w 1 6000 | sed 's/$/ some padding to make forty bytes.../'" })
    expect(bash.status).toBe("completed")
    const outputPath = String(bash.metadata.outputPath)
    const span = /read lines (\d+)-(\d+) page by page/.exec(bash.output)
    expect(span).not.toBeNull()
    const [from, to] = [Number(span![1]), Number(span![2])]
    expect(from).toBe(1)
    expect(to).toBeGreaterThan(2000)

    const [first] = namedCalls(bash.output)
    expect(first).toEqual({ filePath: outputPath, offset: 1 })
    const got = new Map<number, string>()
    let args: Record<string, unknown> | undefined = first
    while (args) {
      const read = call("read", args)
      expect(read.status).toBe("completed")
      const { lines, next } = page(read.output)
      for (const [number, line] of lines) got.set(number, line)
      args = next !== undefined && next <= to ? { filePath: outputPath, offset: next } : undefined
    }
    const expected = await savedLines(outputPath, from, to)
    for (const [number, line] of expected) expect(got.get(number)).toBe(line)
  })
})
