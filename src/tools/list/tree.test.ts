import { describe, expect, it } from "vitest"
import { renderTree, sortEntries } from "./tree.ts"

describe("renderTree", () => {
  it("indents each level by two spaces, directories first, each group sorted", () => {
    expect(
      renderTree("/p", [
        { path: "z.ts", directory: false },
        { path: "src", directory: true },
        { path: "a.ts", directory: false },
        { path: "docs", directory: true },
        { path: "src/util", directory: true },
        { path: "src/main.ts", directory: false },
        { path: "src/util/x.ts", directory: false },
      ]),
    ).toBe(
      ["/p/", "  docs/", "  src/", "    util/", "      x.ts", "    main.ts", "  a.ts", "  z.ts"].join("\n"),
    )
  })

  it("implies parents from their children's paths", () => {
    expect(renderTree("/p/", [{ path: "a/b/c.txt", directory: false }])).toBe(
      "/p/\n  a/\n    b/\n      c.txt",
    )
  })

  it("shows just the root for no entries", () => {
    expect(renderTree("/p", [])).toBe("/p/")
  })
})

describe("sortEntries", () => {
  it("puts directories before files", () => {
    const sorted = sortEntries([
      { name: "b", directory: false },
      { name: "c", directory: true },
      { name: "a", directory: false },
      { name: "a", directory: true },
    ])
    expect(sorted.map((item) => `${item.name}${item.directory ? "/" : ""}`)).toEqual(["a/", "c/", "a", "b"])
  })
})
