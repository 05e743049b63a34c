import { describe, expect, it } from "vitest"
import { queryParts } from "./parts.ts"

describe("queryParts", () => {
  it("splits a task at punctuation and joining words", () => {
    expect(
      queryParts("list the open issues on GitHub, then post a summary to Slack and take a screenshot"),
    ).toEqual(["list the open issues on GitHub", "post a summary to Slack", "take a screenshot"])
  })

  it("keeps dots inside words and a query with one intent whole", () => {
    expect(queryParts("search node.js release notes")).toEqual(["search node.js release notes"])
  })

  it("splits Chinese at its punctuation and joining words", () => {
    expect(queryParts("用高德地图找一下西湖附近的酒店，并查看其中一家的详情")).toEqual([
      "用高德地图找一下西湖附近的酒店",
      "并查看其中一家的详情",
    ])
  })
})
