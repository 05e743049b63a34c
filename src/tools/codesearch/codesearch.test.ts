import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { exaStandIn, type McpStandIn, searchToolbelts } from "../kit/search/fixtures/stand-ins.ts"
import { NO_CODE } from "./codesearch.ts"

const toolbeltWith = searchToolbelts("codesearch")
let exa: McpStandIn

beforeAll(async () => {
  exa = await exaStandIn()
})
afterEach(() => {
  exa.calls.length = 0
})
afterAll(async () => {
  await exa.close()
})

describe("codesearch", () => {
  it("calls Exa's get_code_context_exa over MCP with the query and tokensNum; Exa's text is the output", async () => {
    const toolbelt = await toolbeltWith(
      { codesearch: { provider: "exa", url: exa.url } },
      { EXA_API_KEY: "k" },
    )
    const result = await toolbelt.call({
      tool: "codesearch",
      input: { query: "React useState", tokensNum: 2000 },
    })
    expect(result).toMatchObject({
      status: "completed",
      title: "Code search: React useState",
      output: "## React useState\n\n```ts\nconst [count, setCount] = useState(0)\n```",
      metadata: { provider: "exa", found: true },
    })
    expect(exa.calls.map(({ tool, args }) => ({ tool, args }))).toEqual([
      { tool: "get_code_context_exa", args: { query: "React useState", tokensNum: 2000 } },
    ])
    expect(new URL(exa.calls[0]!.url, exa.origin).searchParams.get("exaApiKey")).toBe("k")
  })

  it("uses websearch's Exa endpoint when websearch is Exa, with 5000 tokens by default", async () => {
    const toolbelt = await toolbeltWith({ websearch: { provider: "exa", url: exa.url } })
    expect((await toolbelt.tools()).map((tool) => tool.name)).toContain("codesearch")
    await toolbelt.call({ tool: "codesearch", input: { query: "tokio select" } })
    expect(exa.calls[0]!.args).toEqual({ query: "tokio select", tokensNum: 5000 })
  })

  it("says so when Exa finds nothing", async () => {
    const toolbelt = await toolbeltWith({ codesearch: { provider: "exa", url: exa.url } })
    const result = await toolbelt.call({ tool: "codesearch", input: { query: "nothing at all" } })
    expect(result).toMatchObject({ status: "completed", output: NO_CODE, metadata: { found: false } })
  })

  it("keeps tokensNum within 1000 to 50000", async () => {
    const toolbelt = await toolbeltWith({ codesearch: { provider: "exa", url: exa.url } })
    const result = await toolbelt.call({ tool: "codesearch", input: { query: "x", tokensNum: 60000 } })
    expect(result.status).toBe("error")
    expect(exa.calls).toHaveLength(0)
  })

  it("is not offered without Exa, and says how to configure it", async () => {
    const toolbelt = await toolbeltWith({ websearch: { provider: "searxng", url: "http://127.0.0.1:9/" } })
    expect((await toolbelt.tools()).map((tool) => tool.name)).not.toContain("codesearch")
    expect((await toolbelt.withheld()).find((tool) => tool.name === "codesearch")?.reason).toMatch(
      /^code search goes through Exa, which is not configured: set "codesearch": \{"provider": "exa"\}/,
    )
  })
})
