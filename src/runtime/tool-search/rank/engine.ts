// The ranking: BM25F over a tool's fields, plus how much of the tool's own name the query covers,
// plus the evidence for its server; query words also look for their synonyms at a lower weight. A
// query of several clauses (a whole task) is also searched clause by clause, and each tool keeps its
// best clause's relative score, so every intent of the task gets its best tools into the top list.
// `RankParams` holds every knob, so the benchmark can switch each method off and measure it.

import { bilingualTerms } from "./bilingual.ts"
import { Bm25f, type FieldParams, type Scores } from "./bm25f.ts"
import { type Field, readFields } from "./fields.ts"
import { intentTerms } from "./intents.ts"
import { queryParts } from "./parts.ts"
import { Prefixes } from "./prefixes.ts"
import { buildServerIndex } from "./servers.ts"
import { expand } from "./synonyms.ts"
import { isCjkChar, joinedTerms, stopTerms, terms } from "./terms.ts"
import type { SearchDoc, SearchHit, ToolIndex } from "./types.ts"
import { type Action, actions, leadAction } from "./verbs.ts"

export interface RankParams {
  readonly k1: number
  readonly fields: Readonly<Record<Field, FieldParams>>
  /** Weight of a synonym against 1 for the query's own word (0: no synonyms). */
  readonly synonym: number
  /** Weight of a query's stop word that is a word of some tool's name ("my" in get_my_cards; 0: off). */
  readonly stopInName: number
  /** Weight of an indexed word sharing a beginning with a query word (0: off). */
  readonly prefix: number
  /** Weight of a single Han/kana/Hangul character of the query (its bigrams weigh 1). */
  readonly cjkChar: number
  /** Score for covering all of a tool's name terms (idf-weighted share; 0: off). */
  readonly nameCoverage: number
  /** Weight of the server's own score added to each of its tools (0: off). */
  readonly server: number
  /** Tools of a server the query names (servers.ts `named`) score this much more, as a share (0: off). */
  readonly named: number
  /** Also look for adjacent query words joined into one ("roll back" → rollback) when indexed. */
  readonly joined: boolean
  /** Search a query's clauses apart when it has several (false: the whole query only). */
  readonly clauses: boolean
  /** With clauses: the weight of the whole query's relative score beside the best clause's. */
  readonly whole: number
  /** With clauses: how much of the whole query's server evidence each clause also gets. */
  readonly context: number
  /** Weight of the tool-side words of an intent the query phrases (intents.ts; 0: off). */
  readonly intent: number
  /** Weight of the English words (and Chinese synonyms) for a query's Chinese words (bilingual.ts; 0: off). */
  readonly bilingual: number
  /**
   * A one-step query (one part, parts.ts): a tool whose name reads when the query asks to write,
   * or writes when it asks to read, loses this share of its score (verbs.ts; 0: off).
   */
  readonly action: number
  /**
   * A one-step query (one part, parts.ts) that names no server: each tool counts for
   * `1 - diversity` of its score per tool of its server ranked above it past the first `sameServer`
   * (0: off). A step's words rarely say which of several servers doing the same thing is meant, so
   * the top few show several.
   */
  readonly diversity: number
  readonly sameServer: number
  /** Pseudo-relevance feedback: weight of the top tools' words added to the query (0: off). */
  readonly feedback: number
  /** With feedback: how many top tools, and how many of their words. */
  readonly feedbackDocs: number
  readonly feedbackTerms: number
}

export const DEFAULT_PARAMS: RankParams = {
  k1: 1.2,
  fields: {
    name: { weight: 3, b: 0.3 },
    lead: { weight: 1, b: 0.5 },
    body: { weight: 0.6, b: 0.75 },
    params: { weight: 0.4, b: 0.75 },
    server: { weight: 0.8, b: 0.5 },
  },
  synonym: 0.35,
  prefix: 0.3,
  stopInName: 0.3,
  cjkChar: 0.3,
  nameCoverage: 0.75,
  server: 0.3,
  named: 0.5,
  joined: true,
  clauses: true,
  whole: 1,
  context: 1,
  intent: 0.3,
  bilingual: 0.3,
  action: 0.25,
  diversity: 0.1,
  sameServer: 1,
  feedback: 0,
  feedbackDocs: 3,
  feedbackTerms: 10,
}

/**
 * A query is read up to 2,000 characters and 64 distinct words (a 100-word task is ~600 characters):
 * what lies beyond is not a search, and would make one cost more than the 5 ms a search may take.
 */
const MAX_QUERY_CHARS = 2_000
const MAX_QUERY_TERMS = 64
/** A clause needs at least this many words (CJK characters aside) to be searched on its own. */
const MIN_CLAUSE_TERMS = 2
/** At most this many clauses are searched (each is a pass over the index); later ones join the last. */
const MAX_CLAUSES = 12

type Weights = Map<string, number>
/** One clause of a whole task: its terms (among the query's first 64) and its text. */
interface Clause {
  readonly terms: readonly string[]
  readonly text: string
}

export function buildRankIndex(docs: readonly SearchDoc[], params: RankParams = DEFAULT_PARAMS): ToolIndex {
  const fields = readFields(docs)
  const engine = new Bm25f(fields, params)
  const servers = buildServerIndex(docs, fields)
  const prefixes = new Prefixes(engine.vocabulary())
  const names = fields.map((f) => [...new Set(f.name)])
  const nameWords = new Set(names.flat())
  const nameActions = names.map((list) => actions(list))
  const nameIdf = names.map((list) => list.map((term) => engine.idf(term)))
  const nameMass = nameIdf.map((list) => list.reduce((sum, idf) => sum + idf, 0))

  return {
    size: docs.length,
    search(query, limit, accept) {
      const text = query.slice(0, MAX_QUERY_CHARS)
      const own = [...new Set(termsOf(text))].slice(0, MAX_QUERY_TERMS)
      if (own.length === 0 || limit <= 0) return []
      const weights = weigh(own, text)
      if (params.stopInName > 0)
        for (const stop of stopTerms(text))
          if (nameWords.has(stop) && !weights.has(stop)) weights.set(stop, params.stopInName)
      const wholeServers = params.server > 0 ? servers.score(weights) : undefined
      const named = namedServers(own)
      const clauses = params.clauses ? clauseTerms(text, new Set(own)) : []
      // A query of one part is one step; several parts (even when too short to search apart) a task.
      const oneStep = queryParts(text).length < 2
      const wanted = params.action > 0 && oneStep ? wantedAction(own, weights) : undefined
      let scores = scoreAll(weights, wholeServers, named, wanted)
      if (params.feedback > 0) scores = withFeedback(scores, weights, wholeServers, named)
      if (clauses.length >= 2) scores = fuse(scores, clauses, wholeServers, named)

      const { value } = scores
      const ranked = scores.matched
        .filter((doc) => !accept || accept(docs[doc]!.name))
        .sort((a, b) => value[b]! - value[a]! || a - b)
      const top =
        oneStep && named.size === 0
          ? diversify(ranked, value, limit)
          : ranked.slice(0, limit).map((doc) => ({ doc, score: value[doc]! }))
      return top.map(({ doc, score }): SearchHit => ({ name: docs[doc]!.name, score }))
    },
  }

  /**
   * The best `limit`, chosen one at a time: each tool counts for `1 - diversity` of its score per
   * tool of its server already chosen past the first `sameServer`; the score given is that share.
   */
  function diversify(
    ranked: readonly number[],
    value: Float64Array,
    limit: number,
  ): { doc: number; score: number }[] {
    const { diversity, sameServer } = params
    const left = ranked.slice(0, diversity === 0 ? limit : limit * 4)
    const chosen = new Map<number, number>()
    const out: { doc: number; score: number }[] = []
    while (out.length < limit && left.length > 0) {
      let best = 0
      let bestScore = -1
      for (const [i, doc] of left.entries()) {
        const before = chosen.get(servers.serverOf[doc]!) ?? 0
        const score = value[doc]! * (1 - diversity) ** Math.max(0, before - sameServer + 1)
        if (score > bestScore) {
          best = i
          bestScore = score
        }
      }
      const doc = left.splice(best, 1)[0]!
      out.push({ doc, score: bestScore })
      const id = servers.serverOf[doc]!
      if (id >= 0) chosen.set(id, (chosen.get(id) ?? 0) + 1)
    }
    return out
  }

  /** A text's terms, and its adjacent words joined where the index has the joined word. */
  function termsOf(text: string): string[] {
    const out = terms(text)
    if (params.joined) for (const joined of joinedTerms(text)) if (engine.idf(joined) > 0) out.push(joined)
    return out
  }

  /** The query's own terms at 1 (single CJK characters less), their synonyms and intents' words below. */
  function weigh(own: readonly string[], text: string): Weights {
    const weights: Weights = new Map(own.map((term) => [term, isCjkChar(term) ? params.cjkChar : 1]))
    if (params.synonym > 0) for (const synonym of expand(own)) weights.set(synonym, params.synonym)
    if (params.intent > 0)
      for (const term of intentTerms(text)) weights.set(term, Math.max(weights.get(term) ?? 0, params.intent))
    if (params.bilingual > 0)
      for (const term of bilingualTerms(text))
        weights.set(term, Math.max(weights.get(term) ?? 0, params.bilingual))
    if (params.prefix > 0)
      for (const term of own)
        for (const related of prefixes.related(term))
          weights.set(related, Math.max(weights.get(related) ?? 0, params.prefix))
    return weights
  }

  function scoreAll(
    weights: Weights,
    serverScores: Float64Array | undefined,
    named: ReadonlySet<number>,
    wanted?: ReadonlySet<Action>,
  ): Scores {
    const scores = engine.score(weights)
    for (const doc of scores.matched) {
      let score = scores.value[doc]! + nameBonus(doc, weights) + serverBonus(doc, serverScores)
      if (wanted && wanted.size > 0 && otherAction(nameActions[doc]!, wanted)) score *= 1 - params.action
      scores.value[doc] = named.has(servers.serverOf[doc]!) ? score * (1 + params.named) : score
    }
    return scores
  }

  /**
   * What a query asks to do: the kind of its first action word ("list the stories assigned to me"
   * reads: "assigned" describes them), else the kinds its expansions name ("see" looks for get, list).
   */
  function wantedAction(own: readonly string[], weights: Weights): ReadonlySet<Action> {
    const lead = leadAction(own)
    return lead ? new Set([lead]) : actions(weights.keys())
  }

  function namedServers(terms: readonly string[]): ReadonlySet<number> {
    return params.named > 0 ? servers.named(new Set(terms)) : new Set()
  }

  /** Each clause's terms (those of the query's first 64), short clauses joined to the one before (or after) them. */
  function clauseTerms(text: string, own: ReadonlySet<string>): Clause[] {
    const out: Clause[] = []
    let pending: string[] = []
    let pendingText = ""
    for (const part of queryParts(text)) {
      pending.push(...termsOf(part).filter((term) => own.has(term)))
      pendingText = pendingText ? `${pendingText}, ${part}` : part
      if (wordCount(pending) < MIN_CLAUSE_TERMS || out.length === MAX_CLAUSES - 1) continue
      out.push({ terms: [...new Set(pending)], text: pendingText })
      pending = []
      pendingText = ""
    }
    if (pending.length > 0) {
      const last = out.at(-1)
      if (last)
        out[out.length - 1] = {
          terms: [...new Set([...last.terms, ...pending])],
          text: `${last.text}, ${pendingText}`,
        }
      else out.push({ terms: [...new Set(pending)], text: pendingText })
    }
    return out
  }

  /**
   * Each tool's best relative score over the clauses (its score over that clause's best), plus the
   * whole query's relative score at a lower weight. A clause also gets some of the whole query's
   * server evidence: "then approve it" is about the server the task named earlier.
   */
  function fuse(
    whole: Scores,
    clauses: readonly Clause[],
    wholeServers: Float64Array | undefined,
    wholeNamed: ReadonlySet<number>,
  ): Scores {
    // Relative to the best, not ranks: measured on dev, rank fusion (k 2 to 10) did no better.
    const value = new Float64Array(docs.length)
    const wholeTop = maxOf(whole)
    for (const doc of whole.matched) value[doc] = (params.whole * whole.value[doc]!) / wholeTop
    const best = new Float64Array(docs.length)
    const matched = new Set(whole.matched)
    for (const clause of clauses) {
      const weights = weigh(clause.terms, clause.text)
      let serverScores: Float64Array | undefined
      if (wholeServers) {
        serverScores = servers.score(weights)
        for (let id = 0; id < serverScores.length; id++)
          serverScores[id]! += params.context * wholeServers[id]!
      }
      // A clause that names a server is about that one; one that names none, about the task's.
      const named = namedServers(clause.terms)
      const scores = scoreAll(weights, serverScores, named.size > 0 ? named : wholeNamed)
      const top = maxOf(scores)
      for (const doc of scores.matched) {
        best[doc] = Math.max(best[doc]!, scores.value[doc]! / top)
        matched.add(doc)
      }
    }
    for (const doc of matched) value[doc]! += best[doc]!
    return { value, matched: [...matched] }
  }

  /**
   * RM3-like feedback: the words of the best tools' names and first sentences, each by the share of
   * those tools' score mass that holds it, the most likely ones added at a low weight, and the query
   * searched again: a query in a task's words borrows the tools' words from the tools it already finds.
   */
  function withFeedback(
    first: Scores,
    weights: Weights,
    serverScores: Float64Array | undefined,
    named: ReadonlySet<number>,
  ): Scores {
    const top = [...first.matched]
      .sort((a, b) => first.value[b]! - first.value[a]! || a - b)
      .slice(0, params.feedbackDocs)
    let mass = 0
    for (const doc of top) mass += first.value[doc]!
    if (mass === 0) return first
    const relevance = new Map<string, number>()
    for (const doc of top) {
      const words = [...fields[doc]!.name, ...fields[doc]!.lead]
      if (words.length === 0) continue
      const counts = new Map<string, number>()
      for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1)
      for (const [word, count] of counts)
        relevance.set(word, (relevance.get(word) ?? 0) + ((first.value[doc]! / mass) * count) / words.length)
    }
    const picked = [...relevance]
      .filter(([word]) => !weights.has(word) && engine.idf(word) > 0)
      .sort((a, b) => b[1] - a[1])
      .slice(0, params.feedbackTerms)
    if (picked.length === 0) return first
    const best = picked[0]![1]
    const expanded: Weights = new Map(weights)
    for (const [word, value] of picked) expanded.set(word, (params.feedback * value) / best)
    return scoreAll(expanded, serverScores, named)
  }

  function nameBonus(doc: number, weights: Weights): number {
    if (params.nameCoverage === 0 || nameMass[doc]! === 0) return 0
    let matched = 0
    const list = names[doc]!
    const idf = nameIdf[doc]!
    for (let i = 0; i < list.length; i++) matched += (weights.get(list[i]!) ?? 0) * idf[i]!
    return (params.nameCoverage * matched) / nameMass[doc]!
  }

  function serverBonus(doc: number, scores: Float64Array | undefined): number {
    const id = servers.serverOf[doc]!
    return scores && id >= 0 ? params.server * scores[id]! : 0
  }
}

/** How many words a query has, its single CJK characters aside (they repeat its bigrams). */
function wordCount(list: readonly string[]): number {
  let count = 0
  for (const term of list) if (!isCjkChar(term)) count++
  return count
}

/** Whether a tool's name does only kinds of action the query does not ask for. */
function otherAction(tool: ReadonlySet<Action>, wanted: ReadonlySet<Action>): boolean {
  if (tool.size === 0) return false
  for (const kind of tool) if (wanted.has(kind)) return false
  return true
}

function maxOf(scores: Scores): number {
  let best = 0
  for (const doc of scores.matched) best = Math.max(best, scores.value[doc]!)
  return best || 1
}
