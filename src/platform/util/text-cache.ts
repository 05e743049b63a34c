/**
 * A map keyed by texts (file contents, answers, tool definitions), bounded by the characters it holds:
 * each entry counts `sizeOf(key, value)` (by default its key's length), the oldest go first once the
 * bound is passed, and an entry found again is kept the longest. An entry larger than `maxEntryChars`
 * is not kept at all, so one huge text cannot empty the cache of everything else.
 *
 * Texts as Map keys cost one compare of equal texts on a hit (V8 hashes a long string by its length,
 * then compares), which is what these caches are for: found again without hashing or reworking it.
 */
export class TextCache<V> {
  readonly #entries = new Map<string, V>()
  readonly #maxChars: number
  readonly #maxEntryChars: number
  readonly #sizeOf: (key: string, value: V) => number
  #chars = 0

  constructor(options: {
    readonly maxChars: number
    readonly maxEntryChars?: number
    readonly sizeOf?: (key: string, value: V) => number
  }) {
    this.#maxChars = options.maxChars
    this.#maxEntryChars = options.maxEntryChars ?? options.maxChars
    this.#sizeOf = options.sizeOf ?? ((key) => key.length)
  }

  /** The value kept for `key`, which is then kept the longest; undefined when there is none. */
  get(key: string): V | undefined {
    const value = this.#entries.get(key)
    if (value === undefined) return undefined
    this.#entries.delete(key)
    this.#entries.set(key, value)
    return value
  }

  /** Keeps `value` for `key` as the newest entry; false when it is too large to keep. */
  set(key: string, value: V): boolean {
    const size = this.#sizeOf(key, value)
    if (size > this.#maxEntryChars) return false
    const known = this.#entries.get(key)
    if (known !== undefined) {
      this.#entries.delete(key)
      this.#chars -= this.#sizeOf(key, known)
    }
    this.#entries.set(key, value)
    this.#chars += size
    for (const [oldest, kept] of this.#entries) {
      if (this.#chars <= this.#maxChars) break
      this.#entries.delete(oldest)
      this.#chars -= this.#sizeOf(oldest, kept)
    }
    return true
  }

  /** The entries, oldest first. */
  entries(): IterableIterator<[string, V]> {
    return this.#entries.entries()
  }

  get size(): number {
    return this.#entries.size
  }

  /** The characters held, as `sizeOf` counts them. */
  get chars(): number {
    return this.#chars
  }
}
