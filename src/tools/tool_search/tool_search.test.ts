import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { MockLanguageModelV4 } from "ai/test"
import { countTokens } from "gpt-tokenizer/encoding/o200k_base"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { z } from "zod"
import { internals } from "../../compose/internals.ts"
import { createToolbelt, type Toolbelt } from "../../compose/toolbelt.ts"
import type { Config } from "../../runtime/config/config.ts"
import * as Tool from "../../runtime/tool/index.ts"
import { DEFINITIONS_BYTES, describeToolSearch } from "./tool_search.ts"

let dir: string
const open: Toolbelt[] = []
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolbelt-tool-search-"))
})
afterEach(async () => {
  for (const toolbelt of open.splice(0)) await toolbelt.close()
  await rm(dir, { recursive: true, force: true })
})

async function toolbelt(config: Config = { tool_search: "on" }): Promise<Toolbelt> {
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

const tool = (description: string) =>
  Tool.make({
    description,
    input: z.object({ repo: z.string().describe("owner/name of the repository") }),
    execute: ({ repo }) => repo,
  })

const github = {
  github_create_issue: tool("Create a new issue in a GitHub repository. Give a title and a body."),
  github_list_pull_requests: tool("List pull requests in a GitHub repository."),
  github_get_file_contents: tool("Get the contents of a file or directory from a GitHub repository."),
}
const slack = { slack_post_message: tool("Post a new message to a Slack channel.") }

async function search(belt: Toolbelt, input: unknown, extra?: Record<string, unknown>) {
  const settled = await belt.call({ tool: "tool_search", input, sessionID: "s", ...(extra ? { extra } : {}) })
  return settled as { status: string; output?: string; error?: string; metadata?: { matches?: string[] } }
}

describe("tool_search", () => {
  it("answers one line per match, best first, then the full definitions, and loads the matches", async () => {
    const belt = await toolbelt()
    belt.register(github, { source: "mcp:github" })
    belt.register(slack, { source: "mcp:slack" })
    const found = await search(belt, { query: "open a new issue on github", limit: 2 })
    expect(found.status).toBe("completed")
    const lines = found.output!.split("\n")
    expect(lines[0]).toBe("github_create_issue: Create a new issue in a GitHub repository.")
    expect(lines[1]).toMatch(/^\w+: /)
    expect(lines[2]).toBe("")
    expect(lines[3]).toBe("These tools are now loaded: call them by the names above. Their definitions:")
    expect(found.output).toContain(
      '<tool name="github_create_issue">\n<description>Create a new issue in a GitHub repository. Give a title and a body.</description>\n<input_schema>{',
    )
    const schema =
      /<tool name="github_create_issue">[\s\S]*?<input_schema>(.*)<\/input_schema>\n<\/tool>/.exec(
        found.output!,
      )![1]!
    expect(JSON.parse(schema)).toMatchObject({ type: "object", properties: { repo: { type: "string" } } })
    expect(found.metadata?.matches).toHaveLength(2)
    expect([...internals(belt).toolSearch.loaded("s")]).toEqual(found.metadata!.matches)
    const listed = (await belt.tools({ sessionID: "s" })).map((each) => each.name)
    expect(listed).toEqual(expect.arrayContaining(found.metadata!.matches!))
    const unmatched = [...Object.keys(github), ...Object.keys(slack)].filter(
      (name) => !found.metadata!.matches!.includes(name),
    )
    for (const name of unmatched) expect(listed).not.toContain(name)
  })

  it("says when nothing matches: how many tools are deferred, from where, and what to try", async () => {
    const belt = await toolbelt()
    belt.register(github, { source: "mcp:github" })
    belt.register(slack, { source: "mcp:slack" })
    const found = await search(belt, { query: "kubernetes pod logs" })
    expect(found.output).toBe(
      [
        'No deferred tool matches "kubernetes pod logs".',
        "4 tools are deferred, from: github (3), slack (1).",
        'Try other words: the action and the thing it acts on ("list pull requests", "send slack message"), a synonym, or the name of the service.',
      ].join("\n"),
    )
    expect(internals(belt).toolSearch.loaded("s").size).toBe(0)
  })

  it("finds only what is deferred for the agent: a tool its rules deny is not found", async () => {
    const belt = await toolbelt({ tool_search: "on", permission: { github_create_issue: "deny" } })
    belt.register(github, { source: "mcp:github" })
    const found = await search(belt, { query: "create issue", limit: 5 })
    expect(found.metadata?.matches).not.toContain("github_create_issue")
  })

  it("refuses an empty query, one past 2,000 characters, and a limit outside 1-20", async () => {
    const belt = await toolbelt()
    belt.register(github, { source: "mcp:github" })
    expect((await search(belt, { query: "  " })).status).toBe("error")
    expect((await search(belt, { query: "issue", limit: 21 })).status).toBe("error")
    expect((await search(belt, { query: "issue", limit: 0 })).status).toBe("error")
    const long = await search(belt, { query: "create an issue ".repeat(200) })
    expect(long).toMatchObject({ status: "error" })
    expect((long as { error: string }).error).toMatch(/at most 2000 characters/)
  })

  it("keeps long definitions within ~40 KB: the best whole, the rest named with how to get them", async () => {
    const belt = await toolbelt()
    const long = (n: number) =>
      tool(`Export report number ${n}. ${"A long explanation of the report. ".repeat(400)}`)
    belt.register(Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`reports_export_${i}`, long(i)])), {
      source: "mcp:reports",
    })
    const found = await search(belt, { query: "export report", limit: 6 })
    const output = found.output!
    const shown = output.match(/<tool name=/g)!.length
    expect(shown).toBeGreaterThanOrEqual(1)
    expect(shown).toBeLessThan(6)
    expect(Buffer.byteLength(output)).toBeLessThan(DEFINITIONS_BYTES + 2_000)
    expect(output).toMatch(/are left out to keep this short; they are loaded too/)
    expect(internals(belt).toolSearch.loaded("s").size).toBe(6)
  })

  it("with tool_search_rerank, orders the candidates as the session's model says", async () => {
    const belt = await toolbelt({ tool_search: "on", tool_search_rerank: true })
    belt.register(github, { source: "mcp:github" })
    const prompts: string[] = []
    const model = new MockLanguageModelV4({
      doGenerate: async (options) => {
        prompts.push(JSON.stringify(options.prompt))
        return {
          content: [{ type: "text", text: "1. github_get_file_contents\n2. github_create_issue\nnonsense" }],
          finishReason: { unified: "stop", raw: "stop" },
          usage: {
            inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
            outputTokens: { total: 1, text: 1, reasoning: 0 },
          },
          warnings: [],
        }
      },
    })
    const turn = { providerID: "mock", modelID: "mock-model", model }
    const found = await search(belt, { query: "github repository", limit: 2 }, { model: turn })
    expect(prompts).toHaveLength(1)
    expect(found.metadata?.matches).toEqual(["github_get_file_contents", "github_create_issue"])

    // A model that fails leaves the ranker's order, and the result says nothing of it.
    const failing = new MockLanguageModelV4({
      doGenerate: async () => {
        throw new Error("overloaded")
      },
    })
    const plain = await search(
      belt,
      { query: "github repository", limit: 2 },
      {
        model: { ...turn, model: failing },
      },
    )
    expect(plain.status).toBe("completed")
    expect(plain.output).not.toMatch(/overloaded|rerank/)
  })
})

describe("tool_search's description", () => {
  it("names each source with its count and a few words, within ~1,500 tokens for 70 servers", () => {
    const groups = Array.from({ length: 70 }, (_, i) => ({
      name: `server-number-${i}`,
      tools: 5 + (i % 20),
      about: `The official MCP server of service ${i}: manage projects, issues, files, users and billing through its REST API, with pagination and search.`,
    }))
    const description = describeToolSearch(groups)
    expect(description).toContain("- server-number-0 (5 tools): The official MCP server of service 0")
    expect(countTokens(description)).toBeLessThanOrEqual(1_500)
    expect(describeToolSearch([])).toContain("(none right now)")
  })
})
