// BM25F: one term frequency per document, summed over its fields, each field's count weighted and
// normalised by that field's own length against the field's average (a long description is judged
// against descriptions, a long name against names), then saturated once (k1) and weighted by idf.
// Everything query-independent is computed at build time: a posting holds a term's finished
// contribution to a document, so a search only adds numbers.

export interface FieldParams {
  readonly weight: number
  /** Length normalisation, 0 (none) to 1 (full). */
  readonly b: number
}

export interface Bm25fParams<F extends string> {
  readonly k1: number
  readonly fields: Readonly<Record<F, FieldParams>>
}

/** Scores of one search: `value` by document index, and which documents have one (in no order). */
export interface Scores {
  readonly value: Float64Array
  readonly matched: number[]
}

interface Posting {
  readonly docs: Int32Array
  /** idf × saturated weighted tf, per document in `docs`. */
  readonly values: Float64Array
}

export class Bm25f<F extends string> {
  readonly size: number
  readonly #postings = new Map<string, Posting>()
  readonly #idf = new Map<string, number>()

  constructor(docs: readonly Readonly<Record<F, readonly string[]>>[], params: Bm25fParams<F>) {
    this.size = docs.length
    const names = (Object.keys(params.fields) as F[]).filter((field) => params.fields[field].weight !== 0)
    const average = new Map<F, number>()
    for (const field of names) {
      let total = 0
      for (const doc of docs) total += doc[field].length
      average.set(field, Math.max(1, total / Math.max(1, docs.length)))
    }
    // Terms as numbers, one document's counts in one reused array: this runs right after start-up,
    // before the JIT has warmed up, so it avoids a Map per document.
    const ids = new Map<string, number>()
    const holders: number[][] = []
    const counts: number[][] = []
    const tf: number[] = []
    const touched: number[] = []
    for (const [doc, fields] of docs.entries()) {
      for (const field of names) {
        const list = fields[field]
        if (list.length === 0) continue
        const { weight, b } = params.fields[field]
        const add = weight / (1 - b + (b * list.length) / average.get(field)!)
        for (const term of list) {
          let id = ids.get(term)
          if (id === undefined) {
            id = ids.size
            ids.set(term, id)
            holders.push([])
            counts.push([])
            tf.push(0)
          }
          if (tf[id] === 0) touched.push(id)
          tf[id]! += add
        }
      }
      for (const id of touched) {
        holders[id]!.push(doc)
        counts[id]!.push(tf[id]!)
        tf[id] = 0
      }
      touched.length = 0
    }
    for (const [term, id] of ids) {
      const list = holders[id]!
      const n = list.length
      const idf = Math.log(1 + (docs.length - n + 0.5) / (n + 0.5))
      this.#idf.set(term, idf)
      const values = new Float64Array(n)
      for (let i = 0; i < n; i++) values[i] = (idf * counts[id]![i]!) / (params.k1 + counts[id]![i]!)
      this.#postings.set(term, { docs: Int32Array.from(list), values })
    }
  }

  idf(term: string): number {
    return this.#idf.get(term) ?? 0
  }

  /** Every indexed term. */
  vocabulary(): IterableIterator<string> {
    return this.#postings.keys()
  }

  /** Documents that match any of the weighted terms, with their summed scores. */
  score(weights: ReadonlyMap<string, number>): Scores {
    const value = new Float64Array(this.size)
    const matched: number[] = []
    for (const [term, weight] of weights) {
      const posting = this.#postings.get(term)
      if (!posting) continue
      const { docs, values } = posting
      for (let i = 0; i < docs.length; i++) {
        const doc = docs[i]!
        if (value[doc] === 0) matched.push(doc)
        value[doc]! += weight * values[i]!
      }
    }
    return { value, matched }
  }
}
