// Tool search ranking: the API the runtime's tool_search and the benchmark use (the contract of
// issue 27). buildToolIndex is the ranking; buildBm25Index the plain reference it is measured against.
//
// How a tool is found (engine.ts holds the knobs, bench/tool-search.bench.ts measures each):
// - Text to terms (terms.ts): identifiers split on _ - . / camelCase and digits; stop words and words
//   with no intent ("tool", "please", "using") dropped from prose but kept where a tool's name holds
//   them; a light stemmer (stem.ts); Han, kana and Hangul as characters and bigrams.
// - BM25F (bm25f.ts) over the fields of fields.ts: the tool's own name (3), its first sentence (1),
//   the rest of its description (0.6), its parameters (0.4), its server (0.8), each normalised by its
//   own length; long texts cut to a bounded number of terms.
// - Name coverage: the idf-weighted share of the tool's name words the query has.
// - Servers as documents (servers.ts): a query describing a server lifts its tools; a query naming
//   one by words of its own ("feishu", not "time") lifts them by half.
// - Query expansion at lower weights: a general synonym table (synonyms.ts), word families by shared
//   beginnings (prefixes.ts), adjacent words joined ("roll back" → rollback); how a task phrases an
//   intent mapped one way to the words tools use ("let the team know" → send message, intents.ts);
//   Chinese words of a request to the English words (and Chinese synonyms) tools use (bilingual.ts).
// - One step (a one-part query): a tool that only reads when the query's first action word writes, or
//   the reverse, is weighed down (verbs.ts); and when the query names no server, each further tool of
//   one server counts a little less, so the top few show the servers that do the same thing.
// - Whole tasks (parts.ts): each clause is searched too, and a tool keeps its best clause's relative
//   score beside the whole query's, so every intent gets its best tools into the top list.
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
