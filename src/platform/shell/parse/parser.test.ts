import { createRequire } from "node:module"
import { describe, expect, it } from "vitest"
import { loadBashParser, parseBash } from "./parser.ts"

describe("loadBashParser", () => {
  it("initialises once: concurrent first calls share one parser", async () => {
    const [a, b, c] = await Promise.all([loadBashParser(), loadBashParser(), loadBashParser()])
    expect(a).toBe(b)
    expect(b).toBe(c)
    expect(await loadBashParser()).toBe(a)
  })

  it("finds both wasm files through module resolution", () => {
    const require = createRequire(import.meta.url)
    expect(require.resolve("web-tree-sitter/web-tree-sitter.wasm")).toMatch(/web-tree-sitter\.wasm$/)
    expect(require.resolve("tree-sitter-bash/tree-sitter-bash.wasm")).toMatch(/tree-sitter-bash\.wasm$/)
  })
})

describe("parseBash", () => {
  it("parses a command into a bash syntax tree", async () => {
    const tree = await parseBash("git status && echo ok")
    expect(tree).toBeDefined()
    expect(tree!.rootNode.type).toBe("program")
    expect(tree!.rootNode.hasError).toBe(false)
    expect(tree!.rootNode.namedChildren[0]!.type).toBe("list")
    tree!.delete()
  })

  it("returns a tree with errors for invalid input", async () => {
    const tree = await parseBash('echo "unterminated')
    expect(tree!.rootNode.hasError).toBe(true)
    tree!.delete()
  })

  it("indexes text in UTF-16 code units, so node text slices the JS string", async () => {
    const source = "echo café 😀 && ls ü"
    const tree = await parseBash(source)
    const words: string[] = []
    const walk = (node: NonNullable<typeof tree>["rootNode"]) => {
      if (node.type === "word") words.push(source.slice(node.startIndex, node.endIndex))
      for (const child of node.children) walk(child)
    }
    walk(tree!.rootNode)
    expect(words).toEqual(["echo", "café", "😀", "ls", "ü"])
    tree!.delete()
  })

  it("parses concurrently from a cold start", async () => {
    const trees = await Promise.all(["ls", "pwd", "echo hi"].map((command) => parseBash(command)))
    expect(trees.map((tree) => tree!.rootNode.text)).toEqual(["ls", "pwd", "echo hi"])
    for (const tree of trees) tree!.delete()
  })
})
