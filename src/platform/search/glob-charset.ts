// A set of UTF-16 code units, what one position of a glob matches: a literal, `?`, or a class such as
// `[a-z]`. Code units, not code points, because picomatch's regular expressions (no `u` flag) counted so,
// and a glob must keep matching what it matched: `?` is one unit, and a character outside the Basic
// Multilingual Plane is two.

const SLASH = 0x2f

/** A set of code units, tested in constant time below 128 and by its ranges above. */
export class CharSet {
  readonly #ascii = new Uint32Array(4)
  /** Inclusive [low, high] pairs of the code units 128 and above. */
  readonly #ranges: number[] = []
  #negated = false

  /** The set holding `code` alone. */
  static of(code: number): CharSet {
    return new CharSet().add(code, code)
  }

  /** What `?` and each unit of `*` match: anything but `/`. */
  static notSlash(): CharSet {
    return new CharSet().add(SLASH, SLASH).negate()
  }

  /** What a globstar matches: any code unit, `/` included. */
  static any(): CharSet {
    return new CharSet().negate()
  }

  /** Adds the units from `low` to `high` inclusive. */
  add(low: number, high: number): this {
    for (let code = low; code <= Math.min(high, 127); code++) this.#ascii[code >> 5]! |= 1 << (code & 31)
    if (high >= 128) this.#ranges.push(Math.max(low, 128), high)
    return this
  }

  /** Turns the set into its complement. */
  negate(): this {
    this.#negated = !this.#negated
    return this
  }

  /** Adds to `cuts` the units 128 and above where membership may change: each range's start and end + 1. */
  boundaries(cuts: Set<number>): void {
    for (let index = 0; index < this.#ranges.length; index += 2)
      cuts.add(this.#ranges[index]!).add(this.#ranges[index + 1]! + 1)
  }

  has(code: number): boolean {
    if (code < 128)
      return ((this.#ascii[code >> 5]! >>> (code & 31)) & 1) === 1 ? !this.#negated : this.#negated
    const ranges = this.#ranges
    for (let index = 0; index < ranges.length; index += 2)
      if (code >= ranges[index]! && code <= ranges[index + 1]!) return !this.#negated
    return this.#negated
  }
}
