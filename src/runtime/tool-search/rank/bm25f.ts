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

export class Bm25f<F extends string> {
  readonly size: number
  /** term → (document → idf × saturated weighted tf). */
  readonly #postings = new Map<string, Map<number, number>>()
  readonly #idf = new Map<string, number>()

  constructor(docs: readonly Readonly<Record<F, readonly string[]>>[], params: Bm25fParams<F>) {
    this.size = docs.length
    const names = Object.keys(params.fields) as F[]
    const average = new Map<F, number>()
    for (const field of names) {
      let total = 0
      for (const doc of docs) total += doc[field].length
      average.set(field, Math.max(1, total / Math.max(1, docs.length)))
    }
    const tfs: Map<string, number>[] = docs.map((doc) => {
      const tf = new Map<string, number>()
      for (const field of names) {
        const { weight, b } = params.fields[field]
        if (weight === 0 || doc[field].length === 0) continue
        const norm = 1 - b + (b * doc[field].length) / average.get(field)!
        for (const term of doc[field]) tf.set(term, (tf.get(term) ?? 0) + weight / norm)
      }
      return tf
    })
    const documentFrequency = new Map<string, number>()
    for (const tf of tfs)
      for (const term of tf.keys()) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1)
    for (const [term, n] of documentFrequency)
      this.#idf.set(term, Math.log(1 + (docs.length - n + 0.5) / (n + 0.5)))
    for (const [doc, tf] of tfs.entries()) {
      for (const [term, value] of tf) {
        let posting = this.#postings.get(term)
        if (!posting) {
          posting = new Map()
          this.#postings.set(term, posting)
        }
        posting.set(doc, (this.#idf.get(term)! * value) / (params.k1 + value))
      }
    }
  }

  idf(term: string): number {
    return this.#idf.get(term) ?? 0
  }

  /** Every indexed term. */
  vocabulary(): IterableIterator<string> {
    return this.#postings.keys()
  }

  /** Each document's contribution from `term` (absent: none). */
  posting(term: string): ReadonlyMap<number, number> | undefined {
    return this.#postings.get(term)
  }

  /** Documents that match any of the weighted terms, with their summed scores. */
  score(weights: ReadonlyMap<string, number>): Map<number, number> {
    const out = new Map<number, number>()
    for (const [term, weight] of weights) {
      const posting = this.#postings.get(term)
      if (!posting) continue
      for (const [doc, value] of posting) out.set(doc, (out.get(doc) ?? 0) + weight * value)
    }
    return out
  }
}
