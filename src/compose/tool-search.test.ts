import { existsSync } from "node:fs"
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { z } from "zod"
import { CACHE_FILE, tokenizerLoaded } from "../platform/text/tokens/count.ts"
import type { Config } from "../runtime/config/config.ts"
import * as Tool from "../runtime/tool/index.ts"
import { internals } from "./internals.ts"
import { createToolbelt, type Toolbelt } from "./toolbelt.ts"

let dir: string
const open: Toolbelt[] = []

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolbelt-search-"))
})
afterEach(async () => {
  for (const toolbelt of open.splice(0)) await toolbelt.close()
  await rm(dir, { recursive: true, force: true })
})

async function toolbelt(config: Config = {}): Promise<Toolbelt> {
  const made = await createToolbelt({
    directory: dir,
    dataDir: join(dir, ".data"),
    store: "memory",
    config,
    sweep: false,
    mcp: false,
    customTools: false,
  })
  open.push(made)
  return made
}

/** A tool from a fake source: its description says what it does, in `words` words. */
function demoTool(what: string, words = 8) {
  return Tool.make({
    description: `${what}. ${"More detail about this tool. ".repeat(Math.max(0, words - 8) / 5)}`,
    input: z.object({ id: z.string().describe(`The id of the ${what.toLowerCase()} target`) }),
    execute: ({ id }) => `${what}: ${id}`,
  })
}

const demo = {
  demo_create_issue: demoTool("Create an issue in a repository"),
  demo_list_pulls: demoTool("List pull requests of a repository"),
  demo_send_message: demoTool("Send a message to a chat channel"),
}

describe("tool search in a toolbelt", () => {
  it("off: lists everything and hides tool_search; neither off nor on needs the tokenizer", async () => {
    const belt = await toolbelt({ tool_search: "off" })
    belt.register(demo, { source: "mcp:demo" })
    const listed = (await belt.tools()).map((tool) => tool.name)
    expect(listed).toContain("demo_create_issue")
    expect(listed).not.toContain("tool_search")
    const builtinsOnly = await toolbelt()
    expect((await builtinsOnly.tools()).map((tool) => tool.name)).not.toContain("tool_search")
    expect(tokenizerLoaded()).toBe(false)
  })

  it("on: defers MCP tools, lists tool_search, and a search loads what it finds into the session", async () => {
    const belt = await toolbelt({ tool_search: "on" })
    belt.register(demo, { source: "mcp:demo" })
    const listed = (await belt.tools({ sessionID: "s1" })).map((tool) => tool.name)
    expect(listed).toContain("tool_search")
    expect(listed).toContain("read")
    expect(listed).not.toContain("demo_create_issue")

    const heard: [string, readonly string[]][] = []
    internals(belt).toolSearch.onLoad((sessionID, names) => heard.push([sessionID, names]))
    const found = await belt.call({ tool: "tool_search", input: { query: "create issue" }, sessionID: "s1" })
    expect(found.status).toBe("completed")
    const output = (found as { output: string }).output
    expect(output.split("\n")[0]).toBe("demo_create_issue: Create an issue in a repository.")
    expect(output).toContain('<tool name="demo_create_issue">')
    expect(heard).toEqual([["s1", ["demo_create_issue"]]])
    expect((await belt.tools({ sessionID: "s1" })).map((tool) => tool.name)).toContain("demo_create_issue")
    expect((await belt.tools({ sessionID: "s2" })).map((tool) => tool.name)).not.toContain(
      "demo_create_issue",
    )

    await belt.endSession("s1")
    expect(internals(belt).toolSearch.loaded("s1").size).toBe(0)
  })

  it("a deferred tool is callable without being listed", async () => {
    const belt = await toolbelt({ tool_search: "on" })
    belt.register(demo, { source: "mcp:demo" })
    const called = await belt.call({ tool: "demo_send_message", input: { id: "x" }, sessionID: "s" })
    expect(called).toMatchObject({ status: "completed", output: "Send a message to a chat channel: x" })
  })

  it("auto: defers past the budget, with token counts in the `all` listing and the state", async () => {
    const belt = await toolbelt({ tool_search_budget: 100 })
    belt.register(demo, { source: "mcp:demo" })
    const all = await belt.tools({ listing: "all" })
    const issue = all.find((tool) => tool.name === "demo_create_issue")!
    expect(issue.deferred).toBe(true)
    expect(issue.tokens).toBeGreaterThan(10)
    expect(all.find((tool) => tool.name === "read")).toMatchObject({ deferred: false })
    const state = await internals(belt).toolSearch.state()
    expect(state).toMatchObject({ mode: "auto", budget: 100, deferred: 3 })
    expect(state.totalTokens).toBeGreaterThan(100)
    expect(tokenizerLoaded()).toBe(true)
  })
})

describe("what surfaces register", () => {
  it("callable: every tool with the deferred ones marked, and nothing counted", async () => {
    const belt = await toolbelt({ tool_search: "on" })
    belt.register(demo, { source: "mcp:demo" })
    const callable = await belt.tools({ sessionID: "s", listing: "callable" })
    const issue = callable.find((tool) => tool.name === "demo_create_issue")
    expect(issue).toMatchObject({ deferred: true })
    expect(issue?.tokens).toBeUndefined()
    expect(callable.find((tool) => tool.name === "read")).toMatchObject({ deferred: false })
    await belt.close()
    // Counting would have left its cache in the data dir.
    expect(existsSync(join(dir, ".data", CACHE_FILE))).toBe(false)
  })
})

describe("tool search settings and sources", () => {
  it("auto defers past 128 tools even within the budget", async () => {
    const belt = await toolbelt({ tool_search_budget: 10_000_000 })
    const many = Object.fromEntries(
      Array.from({ length: 129 }, (_, i) => [`bulk_tool_${i}`, demoTool(`Tool ${i}`)]),
    )
    belt.register(many, { source: "mcp:bulk" })
    const state = await internals(belt).toolSearch.state()
    expect(state.deferred).toBe(129)
    expect(state.reason).toMatch(/more than the 128/)
    const listed = await belt.tools()
    expect(listed.filter((tool) => tool.entry.source === "mcp:bulk")).toHaveLength(0)
    expect(listed.length).toBeLessThanOrEqual(128)
  })

  it("refuses a wrong value with the key and what it takes", async () => {
    await expect(toolbelt({ tool_search: "sometimes" as "on" })).rejects.toThrow(
      /"tool_search" is "sometimes"; it takes "auto"/,
    )
    await expect(toolbelt({ tool_search_budget: -5 })).rejects.toThrow(
      /"tool_search_budget" is -5; it takes a positive whole number/,
    )
    await expect(toolbelt({ tool_search_rerank: "yes" as unknown as boolean })).rejects.toThrow(
      /"tool_search_rerank" is "yes"/,
    )
  })

  it("an untrusted project may set tool_search and its budget, not the rerank", async () => {
    const home = join(dir, "home")
    await mkdir(home, { recursive: true })
    await writeFile(
      join(dir, "toolbelt.json"),
      JSON.stringify({ tool_search: "on", tool_search_budget: 500, tool_search_rerank: true }),
    )
    const belt = await createToolbelt({
      directory: dir,
      env: { HOME: home, XDG_CONFIG_HOME: join(home, ".config"), PATH: process.env.PATH },
      dataDir: join(dir, ".data"),
      store: "memory",
      sweep: false,
    })
    open.push(belt)
    expect(belt.trust.trusted).toBe(false)
    expect(belt.config).toMatchObject({ tool_search: "on", tool_search_budget: 500 })
    expect(belt.config.tool_search_rerank).toBeUndefined()
  })

  it("defers a project's tool file (custom:) and finds it by its file's name", async () => {
    await mkdir(join(dir, ".toolbelt", "tools"), { recursive: true })
    await writeFile(
      join(dir, ".toolbelt", "tools", "deploy.ts"),
      `export default { description: "Deploys the current branch to the staging cluster.", args: {}, execute: () => "deployed" }\n`,
    )
    const belt = await createToolbelt({
      directory: dir,
      dataDir: join(dir, ".data"),
      store: "memory",
      config: { tool_search: "on" },
      sweep: false,
      mcp: false,
      trust: true,
    })
    open.push(belt)
    const all = await belt.tools({ listing: "all" })
    expect(all.find((tool) => tool.name === "deploy")).toMatchObject({ deferred: true })
    const search = all.find((tool) => tool.name === "tool_search")!
    expect(search.description).toContain("- tool file deploy.ts (1 tool)")
    const found = await belt.call({
      tool: "tool_search",
      input: { query: "deploy to staging" },
      sessionID: "s",
    })
    expect((found as { output: string }).output).toMatch(/^deploy: Deploys the current branch/)
    expect(await belt.call({ tool: "deploy", input: {}, sessionID: "s" })).toMatchObject({
      output: "deployed",
    })
  })

  it("a batch may call a deferred tool by name, never searched", async () => {
    const belt = await toolbelt({ tool_search: "on", batch: true })
    belt.register(demo, { source: "mcp:demo" })
    const listed = (await belt.tools({ sessionID: "s" })).map((tool) => tool.name)
    expect(listed).not.toContain("demo_send_message")
    const batch = await belt.call({
      tool: "batch",
      input: { tool_calls: [{ tool: "demo_send_message", parameters: { id: "general" } }] },
      sessionID: "s",
      callID: "b",
    })
    expect(batch.status).toBe("completed")
    expect(internals(belt).store.parts.get("s", "b.1")?.state).toMatchObject({
      status: "completed",
      output: "Send a message to a chat channel: general",
    })
  })
})
