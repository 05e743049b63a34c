import { createRequire } from "node:module"
import { Language, type Node, Parser, type Tree } from "web-tree-sitter"

export type { Node, Tree }

/**
 * The bash parser: web-tree-sitter with the `tree-sitter-bash` grammar, both loaded from their npm
 * packages' wasm files (resolved with `require.resolve`, so it works from the sources and from an
 * installed package alike).
 *
 * Initialisation happens once per process, on first use; concurrent first callers share the one
 * promise. A failed initialisation is not cached: the next call tries again.
 */
let ready: Promise<Parser> | undefined

/** The shared bash parser, initialising web-tree-sitter and the grammar on first use. */
export function loadBashParser(): Promise<Parser> {
  if (!ready) {
    ready = init()
    ready.catch(() => {
      ready = undefined
    })
  }
  return ready
}

async function init(): Promise<Parser> {
  const require = createRequire(import.meta.url)
  const runtimeWasm = require.resolve("web-tree-sitter/web-tree-sitter.wasm")
  const grammarWasm = require.resolve("tree-sitter-bash/tree-sitter-bash.wasm")
  await Parser.init({ locateFile: () => runtimeWasm })
  const language = await Language.load(grammarWasm)
  const parser = new Parser()
  parser.setLanguage(language)
  return parser
}

/**
 * Parses `command` as bash. Returns `undefined` when the parser cannot be loaded or produces no tree;
 * a tree with syntax errors is still returned (check `tree.rootNode.hasError`).
 * The caller owns the tree and should `tree.delete()` it when done (it lives in wasm memory).
 */
export async function parseBash(command: string): Promise<Tree | undefined> {
  let parser: Parser
  try {
    parser = await loadBashParser()
  } catch {
    return undefined
  }
  return parser.parse(command) ?? undefined
}
