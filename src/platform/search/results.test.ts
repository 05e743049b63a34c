import { describe, expect, it } from "vitest"
import { newestFirst, planContent, TopHits, topNewest, trimLines } from "./results.ts"

const hit = (path: string, mtimeMs: number, count = 1) => ({ path, mtimeMs, count })

describe("ordering", () => {
  it("puts newer files first and breaks ties by path", () => {
    const hits = [hit("b", 1), hit("a", 1), hit("c", 5), hit("d", 3)]
    expect([...hits].sort(newestFirst).map((h) => h.path)).toEqual(["c", "d", "a", "b"])
  })

  it("keeps the newest few exactly as a full sort would", () => {
    let seed = 3
    const random = () => {
      seed = (seed * 48271) % 2147483647
      return seed
    }
    const many = Array.from({ length: 5000 }, (_, k) => hit(`f${random() % 1000}-${k}`, random() % 50))
    const sorted = [...many].sort(newestFirst)
    expect(topNewest([...many], 30)).toEqual(sorted.slice(0, 30))
    const top = new TopHits(30)
    for (const item of many) top.add(item)
    expect(top.items).toEqual(sorted.slice(0, 30))
    expect(top.files).toBe(5000)
    expect(top.matches).toBe(5000)
    expect(new TopHits(0).items).toEqual([])
  })
})

describe("planContent", () => {
  it("takes files in order until the limit of lines is reached", () => {
    const plan = planContent([hit("a", 3, 40), hit("b", 2, 50), hit("c", 1, 30)], 100, Infinity)
    expect(plan.map(({ hit, quota }) => [hit.path, quota])).toEqual([
      ["a", 40],
      ["b", 50],
      ["c", 10],
    ])
    expect(planContent([hit("a", 3, 40)], 100, 5).map(({ quota }) => quota)).toEqual([5])
  })
})

describe("trimLines", () => {
  const line = (n: number, match: boolean) => ({ line: n, text: `l${n}`, match })

  it("keeps the first matches and the context within reach of them", () => {
    const lines = [
      line(1, false),
      line(2, true),
      line(3, false),
      line(4, true),
      line(5, true),
      line(6, false),
      line(9, true),
    ]
    expect(trimLines(lines, 2, 1, 1).map((l) => `${l.line}${l.match ? ":" : "-"}`)).toEqual([
      "1-",
      "2:",
      "3-",
      "4:",
      "5-",
    ])
  })
})
