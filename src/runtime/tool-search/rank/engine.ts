// The ranking: BM25F over a tool's fields, plus how much of the tool's own name the query covers,
// plus the evidence for its server; query words also look for their synonyms at a lower weight; long
// queries (whole tasks) get a top list diversified over their terms. `RankParams` holds every knob,
// so the benchmark can switch each method off and measure what it brings.
import { Bm25f, type FieldParams } from "./bm25f.ts"
import { type Candidate, diversify } from "./diversify.ts"
import { type Field, fieldsOf } from "./fields.ts"
import { buildServerIndex } from "./servers.ts"
import { expand } from "./synonyms.ts"
import { terms } from "./terms.ts"
import type { SearchDoc, SearchHit, ToolIndex } from "./types.ts"

export interface RankParams {
  readonly k1: number
  readonly fields: Readonly<Record<Field, FieldParams>>
  /** Weight of a synonym against 1 for the query's own word (0: no synonyms). */
  readonly synonym: number
  /** Score for covering all of a tool's name terms (idf-weighted share; 0: off). */
  readonly nameCoverage: number
  /** Weight of the server's own score added to each of its tools (0: off). */
  readonly server: number
  /** Diversify when the query has at least this many distinct terms (Infinity: never). */
  readonly diversifyFrom: number
  readonly decay: number
  /** How many candidates per result the diversified pick chooses from. */
  readonly pool: number
}

export const DEFAULT_PARAMS: RankParams = {
  k1: 1.2,
  fields: {
    name: { weight: 3, b: 0.3 },
    lead: { weight: 1.5, b: 0.5 },
    body: { weight: 0.6, b: 0.75 },
    params: { weight: 0.4, b: 0.75 },
    server: { weight: 0.8, b: 0.5 },
  },
  synonym: 0.35,
  nameCoverage: 2,
  server: 0.3,
  diversifyFrom: 7,
  decay: 0.35,
  pool: 4,
}

export function buildRankIndex(docs: readonly SearchDoc[], params: RankParams = DEFAULT_PARAMS): ToolIndex {
  const fields = docs.map(fieldsOf)
  const engine = new Bm25f(fields, params)
  const servers = buildServerIndex(docs, fields)
  const names = fields.map((f) => [...new Set(f.name)])
  const nameMass = names.map((list) => list.reduce((sum, term) => sum + engine.idf(term), 0))

  return {
    size: docs.length,
    search(query, limit, accept) {
      const own = [...new Set(terms(query.slice(0, 10_000)))]
      if (own.length === 0 || limit <= 0) return []
      const weights = new Map<string, number>(own.map((term) => [term, 1]))
      if (params.synonym > 0) for (const term of expand(own)) weights.set(term, params.synonym)
      const serverScores = params.server > 0 ? servers.score(weights) : undefined

      const scored: { doc: number; score: number; base: number }[] = []
      for (const [doc, score] of engine.score(weights)) {
        if (accept && !accept(docs[doc]!.name)) continue
        const base = nameBonus(doc, weights) + serverBonus(doc, serverScores)
        scored.push({ doc, score: score + base, base })
      }
      scored.sort((a, b) => b.score - a.score || a.doc - b.doc)

      let chosen: readonly { doc: number; score: number }[] = scored.slice(0, limit)
      if (own.length >= params.diversifyFrom && scored.length > limit) {
        const pool: Candidate[] = scored.slice(0, limit * params.pool).map(({ doc, base }) => ({
          doc,
          base,
          terms: contributions(doc, weights),
        }))
        const total = new Map(scored.map((s) => [s.doc, s.score]))
        chosen = diversify(pool, limit, { decay: params.decay, share: 0.15 }).map(({ doc }) => ({
          doc,
          score: total.get(doc)!,
        }))
      }
      return chosen.map(({ doc, score }): SearchHit => ({ name: docs[doc]!.name, score }))
    },
  }

  function nameBonus(doc: number, weights: ReadonlyMap<string, number>): number {
    if (params.nameCoverage === 0 || nameMass[doc]! === 0) return 0
    let matched = 0
    for (const term of names[doc]!) matched += (weights.get(term) ?? 0) * engine.idf(term)
    return (params.nameCoverage * matched) / nameMass[doc]!
  }

  function serverBonus(doc: number, scores: Float64Array | undefined): number {
    const id = servers.serverOf[doc]!
    return scores && id >= 0 ? params.server * scores[id]! : 0
  }

  function contributions(doc: number, weights: ReadonlyMap<string, number>): Map<string, number> {
    const out = new Map<string, number>()
    for (const [term, weight] of weights) {
      const value = engine.posting(term)?.get(doc)
      if (value !== undefined) out.set(term, weight * value)
    }
    return out
  }
}
