// Tool search ranking: the API the runtime's tool_search and the benchmark use (the contract of
// issue 27). buildToolIndex is the ranking; buildBm25Index the plain reference it is measured against.
import { buildRankIndex } from "./engine.ts"
import type { SearchDoc, ToolIndex } from "./types.ts"

export { buildBm25Index } from "./bm25.ts"
export { parseRerank, rerankPrompt } from "./rerank.ts"
export { summaryOf } from "./summary.ts"
export type { SearchDoc, SearchHit, ToolIndex } from "./types.ts"

/** The tool search index over `docs`: build once per registry change, search many times. */
export function buildToolIndex(docs: readonly SearchDoc[]): ToolIndex {
  return buildRankIndex(docs)
}
