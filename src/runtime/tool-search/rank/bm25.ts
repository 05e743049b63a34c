// Plain BM25 (k1 1.2, b 0.75) over one bag of words: the name, the description and the parameters'
// names and descriptions, split on anything that is not a letter or digit and lower-cased, nothing
// else. The reference the ranking is measured against; not used to answer searches.
import { Bm25f } from "./bm25f.ts"
import type { SearchDoc, SearchHit, ToolIndex } from "./types.ts"

export function buildBm25Index(docs: readonly SearchDoc[]): ToolIndex {
  const bags = docs.map((doc) => ({
    text: words(`${doc.name} ${doc.description} ${paramWords(doc.inputSchema)}`),
  }))
  const engine = new Bm25f(bags, { k1: 1.2, fields: { text: { weight: 1, b: 0.75 } } })
  return {
    size: docs.length,
    search(query, limit, accept) {
      const weights = new Map<string, number>()
      for (const word of words(query)) weights.set(word, (weights.get(word) ?? 0) + 1)
      const hits: SearchHit[] = []
      const scores = engine.score(weights)
      for (const doc of scores.matched) {
        const name = docs[doc]!.name
        if (!accept || accept(name)) hits.push({ name, score: scores.value[doc]! })
      }
      return hits
        .sort((a, b) => b.score - a.score || a.name.localeCompare(b.name))
        .slice(0, Math.max(0, limit))
    },
  }
}

function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []
}

function paramWords(schema: Record<string, unknown>): string {
  const properties = schema.properties
  if (typeof properties !== "object" || properties === null) return ""
  return Object.entries(properties as Record<string, unknown>)
    .map(([key, value]) => {
      const description = (value as { description?: unknown } | null)?.description
      return typeof description === "string" ? `${key} ${description}` : key
    })
    .join(" ")
}
