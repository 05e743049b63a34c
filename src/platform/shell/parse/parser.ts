import { createRequire } from "node:module"
import { setFlagsFromString } from "node:v8"
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
  keepWasmOnBaselineTier()
  const require = createRequire(import.meta.url)
  const runtimeWasm = require.resolve("web-tree-sitter/web-tree-sitter.wasm")
  const grammarWasm = require.resolve("tree-sitter-bash/tree-sitter-bash.wasm")
  await Parser.init({ locateFile: () => runtimeWasm })
  const language = await Language.load(grammarWasm)
  const parser = new Parser()
  parser.setLanguage(language)
  return parser
}

/** V8 flags that keep WebAssembly on its baseline compiler (Liftoff), with no optimising tier-up. */
export const WASM_BASELINE_FLAGS = [
  "--liftoff-only",
  "--no-wasm-tier-up",
  "--no-wasm-dynamic-tiering",
] as const

/**
 * Keeps the grammar's WebAssembly on V8's baseline compiler.
 *
 * The bash grammar's lexer is one enormous function. After a single scan it is hot enough for V8 to
 * tier it up, and TurboFan compiling it takes about 500 MiB of native memory on a background thread
 * for several seconds: every `bash` call peaked at ~600 MiB RSS whatever the command printed. Liftoff
 * code parses a command in about 0.2 ms, well within what a permission check may cost, and keeps the
 * process near 100 MiB. The flags are process-wide and only take effect when set before the module is
 * compiled, and all three are needed (dynamic tiering ignores the others); setting them back after the
 * compile brings the tier-up back. `TOOLBELT_WASM_TIER_UP=1` leaves V8's defaults alone, for hosts whose
 * own WebAssembly needs the optimising tier more than they need the memory.
 */
function keepWasmOnBaselineTier(): void {
  if (process.env.TOOLBELT_WASM_TIER_UP === "1") return
  for (const flag of WASM_BASELINE_FLAGS) setFlagsFromString(flag)
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
