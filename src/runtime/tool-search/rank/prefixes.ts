// Word-family matching the stemmer cannot do: a query word that begins a longer indexed word
// ("config" → "configuration", "auth" → "authentication", "deploy" → "deployment"), and an indexed
// word that begins a longer query word ("relationship" → "relation"). Found in the index's own
// vocabulary, sorted once, by binary search; the caller weighs these below the word itself. A longer
// word that is the query word joined to another indexed word ("browserbase") is a compound, left out.

/** Shortest word that expands (shorter prefixes would match too much: "get" → "getaway"). */
const MIN = 4
/** At most this many longer words per query word, the shortest first (the closest forms). */
const MAX_LONGER = 6

export class Prefixes {
  readonly #words: string[]
  readonly #known: ReadonlySet<string>

  constructor(vocabulary: Iterable<string>) {
    this.#words = [...vocabulary].filter((word) => /^[a-z]+$/.test(word)).sort()
    this.#known = new Set(this.#words)
  }

  /** Indexed words related to `word` by a shared beginning, `word` itself left out. */
  related(word: string): string[] {
    if (word.length < MIN || !/^[a-z]+$/.test(word)) return []
    const out: string[] = []
    // Shorter indexed words that begin this one, when they keep most of it.
    for (let length = Math.max(MIN, Math.ceil(word.length * 0.6)); length < word.length; length++) {
      const head = word.slice(0, length)
      if (this.#known.has(head)) out.push(head)
    }
    const longer: string[] = []
    for (let i = this.#lowerBound(word); i < this.#words.length && this.#words[i]!.startsWith(word); i++)
      if (this.#words[i] !== word && !this.#compound(this.#words[i]!, word.length))
        longer.push(this.#words[i]!)
    longer.sort((a, b) => a.length - b.length || (a < b ? -1 : 1))
    out.push(...longer.slice(0, MAX_LONGER))
    return out
  }

  /** "browserbase" is "browser" + "base", another thing, not a form of "browser". */
  #compound(word: string, at: number): boolean {
    const rest = word.slice(at)
    return rest.length >= 3 && this.#known.has(rest)
  }

  #lowerBound(word: string): number {
    let low = 0
    let high = this.#words.length
    while (low < high) {
      const middle = (low + high) >> 1
      if (this.#words[middle]! < word) low = middle + 1
      else high = middle
    }
    return low
  }
}
