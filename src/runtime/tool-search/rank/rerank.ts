// Reranking the top candidates with a model: the prompt, and the order read back from its answer.
// Both pure. The answer is trusted only as far as it names candidates: junk keeps the original
// order, invented names are ignored, and candidates it leaves out follow the ones it ranked.
import { summaryOf } from "./summary.ts"
import type { SearchDoc } from "./types.ts"

/** The prompt asking a model to order `candidates` by how well each serves `query`. */
export function rerankPrompt(query: string, candidates: readonly SearchDoc[]): string {
  const lines = candidates.map((doc) => {
    const server = doc.server ? ` [${doc.server.name}]` : ""
    return `- ${doc.name}${server}: ${summaryOf(doc.description)}`
  })
  return [
    "You pick tools for an AI agent. Order the tools below from most to least useful for the request.",
    "Answer with the tool names only, one per line, most useful first. Leave out tools that cannot help.",
    "",
    `Request: ${query.replace(/\s+/g, " ").trim().slice(0, 2_000)}`,
    "",
    "Tools:",
    ...lines,
  ].join("\n")
}

/** The candidates in the order the answer gives, then the ones it did not name in their original order. */
export function parseRerank(answer: string, candidates: readonly string[]): string[] {
  const known = new Set(candidates)
  const ranked: string[] = []
  const taken = new Set<string>()
  // Names may come bare, numbered, bulleted, quoted, in backticks or in a JSON array.
  for (const token of answer.match(/[A-Za-z][A-Za-z0-9_-]*/g) ?? []) {
    if (!known.has(token) || taken.has(token)) continue
    taken.add(token)
    ranked.push(token)
  }
  return [...ranked, ...candidates.filter((name) => !taken.has(name))]
}
