// Server-level evidence: each server (MCP server, plugin, tool file) is also a document, made of its
// name, its description and its tools' names and leading sentences. A query that names or describes a
// server ("in my Notion workspace", "on GitHub") scores that server, and the score lifts its tools:
// among near-duplicates from several servers, the one the query speaks of wins.
import { Bm25f } from "./bm25f.ts"
import type { Fields } from "./fields.ts"
import { nameTerms, terms } from "./terms.ts"
import type { SearchDoc } from "./types.ts"

const SERVER_FIELDS = {
  name: { weight: 3, b: 0 },
  about: { weight: 1, b: 0.75 },
  tools: { weight: 0.5, b: 0.75 },
} as const

export interface ServerIndex {
  /** Per tool (by index), the index of its server, or -1. */
  readonly serverOf: readonly number[]
  /** Each server's BM25F score for the weighted query terms (0: no match). */
  score(weights: ReadonlyMap<string, number>): Float64Array
  /**
   * The servers a query names: every word of the server's name is among the query's terms, and
   * those words are the server's own (mostly found in its tools, not everyone's: "feishu" names a
   * server, "time" or "memory" are just words).
   */
  named(terms: ReadonlySet<string>): Set<number>
}

/** A name word is a server's own when at least this share of the tools that hold it are the server's. */
const OWN_SHARE = 0.6

export function buildServerIndex(docs: readonly SearchDoc[], fields: readonly Fields[]): ServerIndex {
  const ids = new Map<string, number>()
  const serverOf = docs.map((doc) => {
    if (!doc.server) return -1
    let id = ids.get(doc.server.name)
    if (id === undefined) {
      id = ids.size
      ids.set(doc.server.name, id)
    }
    return id
  })
  const bags = [...ids.keys()].map(() => ({
    name: [] as string[],
    about: [] as string[],
    tools: [] as string[],
  }))
  const described = new Set<number>()
  for (const [i, doc] of docs.entries()) {
    const id = serverOf[i]!
    if (id < 0) continue
    const bag = bags[id]!
    if (!described.has(id)) {
      described.add(id)
      bag.name.push(...nameTerms(doc.server!.name))
      bag.about.push(...terms((doc.server!.description ?? "").slice(0, 4_000)).slice(0, 200))
    }
    if (bag.tools.length < 600) bag.tools.push(...fields[i]!.name, ...fields[i]!.lead.slice(0, 12))
  }
  const engine = new Bm25f(bags, { k1: 1.2, fields: SERVER_FIELDS })
  const names = bags.map((bag) => [...new Set(bag.name)])
  const distinctive = distinctiveNames(names, serverOf, fields)
  return {
    serverOf,
    score(weights) {
      return engine.score(weights).value
    },
    named(query) {
      const out = new Set<number>()
      for (const [id, words] of names.entries())
        if (distinctive[id] && words.length > 0 && words.every((word) => query.has(word))) out.add(id)
      return out
    },
  }
}

/** Per server, whether each word of its name is mostly found in its own tools. */
function distinctiveNames(
  names: readonly (readonly string[])[],
  serverOf: readonly number[],
  fields: readonly Fields[],
): boolean[] {
  const counts = new Map<string, { all: number; by: Map<number, number> }>()
  for (const words of names) for (const word of words) counts.set(word, { all: 0, by: new Map() })
  for (const [doc, field] of fields.entries()) {
    const seen = new Set<string>()
    for (const list of Object.values(field))
      for (const term of list) if (counts.has(term) && !seen.has(term)) seen.add(term)
    for (const term of seen) {
      const count = counts.get(term)!
      count.all++
      count.by.set(serverOf[doc]!, (count.by.get(serverOf[doc]!) ?? 0) + 1)
    }
  }
  return names.map((words, id) =>
    words.every((word) => {
      const count = counts.get(word)!
      return count.all > 0 && (count.by.get(id) ?? 0) / count.all >= OWN_SHARE
    }),
  )
}
