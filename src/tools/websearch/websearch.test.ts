import { describe, expect, it } from "vitest"
import type { Toolbelt } from "../../compose/toolbelt.ts"
import { serve } from "../../platform/net/fixtures/loopback.ts"
import {
  braveStandIn,
  exaStandIn,
  exaText,
  parallelStandIn,
  searchToolbelts,
  searxngStandIn,
  tavilyStandIn,
} from "../kit/search/fixtures/stand-ins.ts"

const toolbeltWith = searchToolbelts("websearch")

const names = async (toolbelt: Toolbelt) => (await toolbelt.tools()).map((tool) => tool.name)

describe("websearch through each provider's stand-in", () => {
  it("Exa: web_search_exa over MCP with opencode's arguments and the key as exaApiKey; Exa's text is the output", async () => {
    const exa = await exaStandIn()
    try {
      const toolbelt = await toolbeltWith(
        { websearch: { provider: "exa", url: exa.url } },
        { EXA_API_KEY: "exa-key" },
      )
      expect(await names(toolbelt)).toContain("websearch")
      const result = await toolbelt.call({
        tool: "websearch",
        input: { query: "vitest fixtures", numResults: 3 },
      })
      expect(result).toMatchObject({
        status: "completed",
        title: "Exa Web Search: vitest fixtures",
        output: exaText("vitest fixtures"),
        metadata: { provider: "exa", results: 1 },
      })
      expect(exa.calls).toHaveLength(1)
      expect(exa.calls[0]!.args).toEqual({
        query: "vitest fixtures",
        type: "auto",
        numResults: 3,
        livecrawl: "fallback",
      })
      expect(new URL(exa.calls[0]!.url, exa.origin).searchParams.get("exaApiKey")).toBe("exa-key")
    } finally {
      await exa.close()
    }
  })

  it("Exa: type, livecrawl and contextMaxCharacters are passed on; an empty answer says nothing was found", async () => {
    const exa = await exaStandIn()
    try {
      const toolbelt = await toolbeltWith({ websearch: { provider: "exa", url: exa.url } })
      await toolbelt.call({
        tool: "websearch",
        input: { query: "q", type: "deep", livecrawl: "preferred", contextMaxCharacters: 2000 },
      })
      expect(exa.calls[0]!.args).toEqual({
        query: "q",
        type: "deep",
        numResults: 8,
        livecrawl: "preferred",
        contextMaxCharacters: 2000,
      })
      expect(new URL(exa.calls[0]!.url, exa.origin).searchParams.has("exaApiKey")).toBe(false)
      const empty = await toolbelt.call({ tool: "websearch", input: { query: "nothing at all" } })
      expect(empty).toMatchObject({
        status: "completed",
        output: "No search results found. Please try a different query.",
        metadata: { results: 0 },
      })
    } finally {
      await exa.close()
    }
  })

  it("Parallel: web_search over MCP with the query as objective, the session, and the key as a bearer token", async () => {
    const parallel = await parallelStandIn()
    try {
      const toolbelt = await toolbeltWith(
        { websearch: { provider: "parallel", url: parallel.url } },
        { PARALLEL_API_KEY: "par-key" },
      )
      const result = await toolbelt.call({
        tool: "websearch",
        input: { query: "node streams" },
        sessionID: "ses_parallel",
      })
      expect(result).toMatchObject({
        status: "completed",
        title: "Parallel Web Search: node streams",
        output: "Parallel found: node streams\nhttps://parallel.example/result",
      })
      expect(parallel.calls[0]!.args).toEqual({
        objective: "node streams",
        search_queries: ["node streams"],
        session_id: "ses_parallel",
      })
      expect(parallel.calls[0]!.headers.authorization).toBe("Bearer par-key")
    } finally {
      await parallel.close()
    }
  })

  it("Tavily: POST /search with the bearer key and max_results; results as a numbered list", async () => {
    const tavily = await tavilyStandIn("tvly-key")
    try {
      const toolbelt = await toolbeltWith(
        { websearch: { provider: "tavily", url: `${tavily.origin}/search` } },
        { TAVILY_API_KEY: "tvly-key" },
      )
      const result = await toolbelt.call({
        tool: "websearch",
        input: { query: "zod 4", numResults: 2, type: "deep" },
      })
      expect(result).toMatchObject({
        status: "completed",
        title: "Tavily Web Search: zod 4",
        output: [
          "1. Tavily result 1 for zod 4",
          "   https://tavily.example/1",
          "   Snippet 1: about zod 4",
          "",
          "2. Tavily result 2 for zod 4",
          "   https://tavily.example/2",
          "   Snippet 2: about zod 4",
        ].join("\n"),
        metadata: { provider: "tavily", results: 2 },
      })
      expect(tavily.bodies[0]).toEqual({ query: "zod 4", max_results: 2, search_depth: "advanced" })
    } finally {
      await tavily.close()
    }
  })

  it("Tavily: a rejected key is an error that says what the provider answered and what to check", async () => {
    const tavily = await tavilyStandIn("right")
    try {
      const toolbelt = await toolbeltWith(
        { websearch: { provider: "tavily", url: `${tavily.origin}/search` } },
        { TAVILY_API_KEY: "wrong" },
      )
      const result = await toolbelt.call({ tool: "websearch", input: { query: "x" } })
      expect(result.status).toBe("error")
      expect(result.status === "error" && result.error).toMatch(
        /tavily search provider answered HTTP 401: .*invalid API key.*Check the tavily API key/,
      )
    } finally {
      await tavily.close()
    }
  })

  it("Brave: GET with X-Subscription-Token and count; tags and entities removed from titles and snippets", async () => {
    const brave = await braveStandIn("brave-key")
    try {
      const toolbelt = await toolbeltWith(
        { websearch: { provider: "brave", url: `${brave.origin}/res/v1/web/search` } },
        { BRAVE_API_KEY: "brave-key" },
      )
      const result = await toolbelt.call({
        tool: "websearch",
        input: { query: "undici proxy", numResults: 1 },
      })
      expect(result).toMatchObject({
        status: "completed",
        title: "Brave Web Search: undici proxy",
        output: "1. Brave & undici proxy 1\n   https://brave.example/1\n   The undici proxy result 1",
      })
      const seen = new URL(brave.requests[0]!.url, brave.origin)
      expect(Object.fromEntries(seen.searchParams)).toEqual({ q: "undici proxy", count: "1" })
    } finally {
      await brave.close()
    }
  })

  it("SearXNG: GET <url>/search?format=json; its direct answers first, then the results", async () => {
    const searx = await searxngStandIn()
    try {
      const toolbelt = await toolbeltWith({ websearch: { provider: "searxng", url: searx.origin } })
      const result = await toolbelt.call({
        tool: "websearch",
        input: { query: "meaning of life", numResults: 2 },
      })
      expect(result).toMatchObject({
        status: "completed",
        title: "SearXNG Web Search: meaning of life",
        output: [
          "1. Answer",
          "   42",
          "",
          "2. SearXNG 1: meaning of life",
          "   https://searx.example/1",
          "   Found by two engines (1)",
          "",
          "3. SearXNG 2: meaning of life",
          "   https://searx.example/2",
          "   Found by two engines (2)",
        ].join("\n"),
        metadata: { provider: "searxng", results: 3 },
      })
      expect(searx.requests[0]!.url).toBe("/search?q=meaning+of+life&format=json")
    } finally {
      await searx.close()
    }
  })

  it("SearXNG without the JSON format enabled: the error says how to enable it", async () => {
    const searx = await searxngStandIn({ json: false })
    try {
      const toolbelt = await toolbeltWith({ websearch: { provider: "searxng", url: `${searx.origin}/` } })
      const result = await toolbelt.call({ tool: "websearch", input: { query: "x" } })
      expect(result.status === "error" && result.error).toMatch(/HTTP 403.*add json to search.formats/)
    } finally {
      await searx.close()
    }
  })
})

describe("websearch's offer", () => {
  it("is not offered without a provider, and says what to set; a call says the same", async () => {
    const toolbelt = await toolbeltWith({})
    expect(await names(toolbelt)).not.toContain("websearch")
    const withheld = await toolbelt.withheld()
    expect(withheld.find((tool) => tool.name === "websearch")?.reason).toMatch(
      /^no search provider is configured: set "websearch": \{"provider": "<name>"\}/,
    )
    const result = await toolbelt.call({ tool: "websearch", input: { query: "x" } })
    expect(result.status === "error" && result.error).toMatch(/Search is not available: no search provider/)
  })

  it("is offered when a provider's key is in the environment, and uses that provider", async () => {
    const toolbelt = await toolbeltWith({}, { BRAVE_API_KEY: "k" })
    expect(await names(toolbelt)).toContain("websearch")
  })

  it("a provider that needs a key, without it: not offered, naming the variable", async () => {
    const toolbelt = await toolbeltWith({ websearch: { provider: "tavily" } })
    expect((await toolbelt.withheld()).find((tool) => tool.name === "websearch")?.reason).toBe(
      "the tavily search provider needs an API key: set TAVILY_API_KEY",
    )
  })

  it("a provider nothing answers at: the call says so, and the tool is withheld for a while with the reason", async () => {
    const gone = await serve(() => {})
    const url = `${gone.origin}/search`
    await gone.close()
    const toolbelt = await toolbeltWith({ websearch: { provider: "searxng", url } })
    expect(await names(toolbelt)).toContain("websearch")
    const result = await toolbelt.call({ tool: "websearch", input: { query: "x" } })
    expect(result.status === "error" && result.error).toMatch(
      /Could not reach the searxng search provider at .*ECONNREFUSED|Could not reach the searxng search provider/,
    )
    expect(await names(toolbelt)).not.toContain("websearch")
    expect((await toolbelt.withheld()).find((tool) => tool.name === "websearch")?.reason).toMatch(
      /could not be reached \(ECONNREFUSED\); it is offered again in 5 min/,
    )
  })

  it("a provider that does not answer in time: a timeout error naming the time", async () => {
    const silent = await serve(() => {})
    try {
      const toolbelt = await toolbeltWith({
        websearch: { provider: "searxng", url: silent.origin, timeout: 300 },
      })
      const result = await toolbelt.call({ tool: "websearch", input: { query: "x" } })
      expect(result.status === "error" && result.error).toBe(
        "SearXNG Web Search timed out after 0.3 s. Try again, or a simpler query.",
      )
    } finally {
      await silent.close()
    }
  })

  it("an abort ends the search as an interruption", async () => {
    const silent = await serve(() => {})
    try {
      const toolbelt = await toolbeltWith({ websearch: { provider: "searxng", url: silent.origin } })
      const abort = new AbortController()
      setTimeout(() => abort.abort(), 100)
      const result = await toolbelt.call({ tool: "websearch", input: { query: "x" }, abort: abort.signal })
      expect(result).toMatchObject({ status: "error", metadata: { interrupted: true } })
    } finally {
      await silent.close()
    }
  })

  it("asks websearch for the query; its description carries today's date", async () => {
    const exa = await exaStandIn()
    try {
      const asked: unknown[] = []
      const toolbelt = await toolbeltWith(
        { websearch: { provider: "exa", url: exa.url }, permission: { websearch: "ask" } },
        {},
        async (request) => {
          asked.push({ permission: request.permission, patterns: request.patterns, always: request.always })
          return "once"
        },
      )
      await toolbelt.call({ tool: "websearch", input: { query: "what is new in node 24" } })
      expect(asked).toEqual([
        { permission: "websearch", patterns: ["what is new in node 24"], always: ["*"] },
      ])
      const description = (await toolbelt.tools()).find((tool) => tool.name === "websearch")!.description
      expect(description).toContain(`The current date is ${new Date().toISOString().slice(0, 10)}.`)
    } finally {
      await exa.close()
    }
  })
})
