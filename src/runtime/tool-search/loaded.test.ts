import { expect, it } from "vitest"
import { LoadedSets } from "./loaded.ts"

it("keeps each session's loads apart and tells listeners only of new names", () => {
  const sets = new LoadedSets()
  const heard: [string, readonly string[]][] = []
  const off = sets.onLoad((sessionID, names) => heard.push([sessionID, names]))
  sets.load("a", ["x", "y"])
  sets.load("a", ["y", "z"])
  sets.load("a", ["x"])
  sets.load("b", ["x"])
  expect([...sets.loaded("a")]).toEqual(["x", "y", "z"])
  expect([...sets.loaded("b")]).toEqual(["x"])
  expect(heard).toEqual([
    ["a", ["x", "y"]],
    ["a", ["z"]],
    ["b", ["x"]],
  ])
  off()
  sets.load("c", ["q"])
  expect(heard).toHaveLength(3)
  sets.forget("a")
  expect(sets.loaded("a").size).toBe(0)
})

it("forgets the least recently used session past its bound", () => {
  const sets = new LoadedSets({ maxSessions: 2 })
  sets.load("a", ["x"])
  sets.load("b", ["x"])
  sets.loaded("a")
  sets.load("c", ["x"])
  expect(sets.loaded("b").size).toBe(0)
  expect(sets.loaded("a").size).toBe(1)
  expect(sets.loaded("c").size).toBe(1)
})

it("a listener that throws neither undoes the load nor stops the others", () => {
  const sets = new LoadedSets()
  const heard: string[] = []
  sets.onLoad(() => {
    throw new Error("closed")
  })
  sets.onLoad((_, names) => heard.push(...names))
  sets.load("a", ["x"])
  expect(heard).toEqual(["x"])
  expect(sets.loaded("a").has("x")).toBe(true)
})
