import { describe, expect, it } from "vitest"
import { Prefixes } from "./prefixes.ts"

describe("Prefixes", () => {
  const prefixes = new Prefixes([
    "configuration",
    "config",
    "relation",
    "browser",
    "browserbase",
    "base",
    "deployment",
    "get",
    "getaway",
  ])

  it("finds longer indexed words a query word begins, and shorter ones that begin it", () => {
    expect(prefixes.related("config")).toEqual(["configuration"])
    expect(prefixes.related("relationship")).toEqual(["relation"])
    expect(prefixes.related("deploy")).toEqual(["deployment"])
  })

  it("leaves out compounds, short words and other scripts", () => {
    expect(prefixes.related("browser")).toEqual([])
    expect(prefixes.related("get")).toEqual([])
    expect(prefixes.related("天气")).toEqual([])
  })
})
