// Tool search through `toolbelt run` against the scripted loopback model server, with a real MCP
// server process (the fixture serving kept definitions) whose tools are deferred: what each model
// request offers, before and after tool_search loads a tool.
import { writeFile } from "node:fs/promises"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { runCliAsync } from "../fixtures/cli.ts"
import { SERVE } from "../fixtures/tool-search/server/kept.ts"
import { scriptedRuns } from "./scripted-runs.ts"

const runs = scriptedRuns("tool-search-run")
const { serve, model } = runs
const offered = (request: any): string[] => (request.tools ?? []).map((tool: any) => tool.function.name)
const results = (request: any): string[] =>
  request.messages.filter((message: any) => message.role === "tool").map((message: any) => message.content)

/** A project whose one MCP server's tools are deferred (`"tool_search": "on"`). */
async function project(): Promise<void> {
  await writeFile(
    join(runs.project(), "toolbelt.json"),
    JSON.stringify({
      tool_search: "on",
      mcp: { "toy-tickets": { type: "local", command: [process.execPath, SERVE, "toy-tickets"] } },
    }),
  )
}

// The project's MCP server runs only in a trusted project.
const run = (args: string[]) =>
  runCliAsync(["run", ...args], { cwd: runs.project(), home: runs.home(), env: { TOOLBELT_TRUST: "1" } })

describe("toolbelt run with deferred tools", () => {
  it("step 1 searches, step 2 is offered the match and calls it", async () => {
    await project()
    const { baseURL, requests } = await serve([
      { toolCalls: [{ name: "tool_search", arguments: { query: "open a new ticket", limit: 1 } }] },
      { toolCalls: [{ name: "toy-tickets_create_ticket", arguments: { title: "Flaky test" } }] },
      { text: "Filed it." },
    ])
    const result = await run(["file a ticket", ...model(baseURL)])
    expect(result.status).toBe(0)
    expect(result.stdout).toBe("Filed it.\n")
    expect(result.stderr).toContain("✓ toy-tickets_create_ticket")

    expect(requests).toHaveLength(3)
    expect(offered(requests[0])).toContain("tool_search")
    expect(offered(requests[0])).toContain("read")
    expect(offered(requests[0]).filter((name) => name.startsWith("toy-"))).toEqual([])
    expect(results(requests[1])[0]).toMatch(/^toy-tickets_create_ticket: /)
    expect(offered(requests[1]).filter((name) => name.startsWith("toy-"))).toEqual([
      "toy-tickets_create_ticket",
    ])
    expect(results(requests[2])[1]).toBe('create_ticket called with {"title":"Flaky test"}')
  })

  it("a deferred tool the model names without a search runs, and is offered from the next step", async () => {
    await project()
    const { baseURL, requests } = await serve([
      { toolCalls: [{ name: "toy-tickets_close_ticket", arguments: { id: 7 } }] },
      { text: "Closed." },
    ])
    const result = await run(["close ticket 7", ...model(baseURL)])
    expect(result.status).toBe(0)
    expect(results(requests[1])).toEqual(['close_ticket called with {"id":7}'])
    expect(offered(requests[0])).not.toContain("toy-tickets_close_ticket")
    expect(offered(requests[1])).toContain("toy-tickets_close_ticket")
  })
})
