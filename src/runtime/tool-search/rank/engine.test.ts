import { describe, expect, it } from "vitest"
import { buildRankIndex, DEFAULT_PARAMS } from "./engine.ts"
import type { SearchDoc } from "./types.ts"

const tool = (server: string, name: string, description: string): SearchDoc => ({
  name: `${server}_${name}`,
  description,
  inputSchema: { type: "object", properties: {} },
  server: { name: server },
})

const docs = [
  tool("alpha", "list_pull_requests", "List pull requests of a repository."),
  tool("alpha", "list_pull_request_files", "List the files a pull request changes."),
  tool("alpha", "list_pull_request_reviews", "List the reviews of a pull request."),
  tool("beta", "get_pull_requests", "Get the pull requests."),
  tool("beta", "create_pull_request", "Create a pull request."),
]

const servers = (hits: readonly { name: string }[]) => new Set(hits.map((hit) => hit.name.split("_")[0]))

describe("diversity across servers", () => {
  it("a step naming no server gets several servers' tools in its top few, scores still best first", () => {
    const plain = buildRankIndex(docs, { ...DEFAULT_PARAMS, diversity: 0 }).search("list pull requests", 3)
    const hits = buildRankIndex(docs).search("list pull requests", 3)
    expect(servers(plain)).toEqual(new Set(["alpha"]))
    expect(servers(hits)).toEqual(new Set(["alpha", "beta"]))
    for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hits[i]!.score)
  })

  it("a query naming its server keeps that server's tools together", () => {
    const hits = buildRankIndex(docs).search("list alpha pull requests", 3)
    expect(servers(hits)).toEqual(new Set(["alpha"]))
  })

  it("a query asking to read weighs down a tool that writes", () => {
    const hits = buildRankIndex(docs)
      .search("list pull requests", 5)
      .map((hit) => hit.name)
    expect(hits.at(-1)).toBe("beta_create_pull_request")
  })
})
