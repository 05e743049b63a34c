// The JSON text of the messages the stdio wire sends, one per line. An answer that carries a long text an
// answer carried lately (an agent reading the same file again) reuses that text's JSON escaping: the
// escaping pass over a 40 KB page was a tenth of a read call's time in the server. `JSON.rawJSON`
// (Node 21+) puts the escaped text into `JSON.stringify`'s output as it is; a runtime without it
// escapes every time. The output is the same either way.

/** Strings shorter than this are escaped every time (looking them up would cost about as much). */
export const MIN_CACHED_CHARS = 4096

/** Characters of the texts remembered (seen once, or escaped), at most; the oldest are forgotten first. */
export const MAX_CACHED_CHARS = 4 * 1024 * 1024

type RawJson = object
const rawJSON = (JSON as unknown as { rawJSON?: (text: string) => RawJson }).rawJSON

/**
 * Serializes JSON-RPC messages. A long string is escaped ahead only the second time it is sent, so a
 * text sent once (a command's output) costs nothing more than before and stays out of the way.
 */
export class JsonLines {
  /** Long texts sent lately: their escaped JSON, or null when seen only once. */
  readonly #texts = new Map<string, RawJson | null>()
  #chars = 0

  /** `message` as JSON, the same text `JSON.stringify` gives. */
  stringify(message: unknown): string {
    if (!rawJSON) return JSON.stringify(message)
    return JSON.stringify(message, (_key, value: unknown) =>
      typeof value === "string" && value.length >= MIN_CACHED_CHARS ? this.#escaped(value) : value,
    )
  }

  /** How many texts are held escaped (for tests). */
  get escapedTexts(): number {
    let count = 0
    for (const raw of this.#texts.values()) if (raw) count++
    return count
  }

  /** How many characters of texts are remembered (for tests). */
  get chars(): number {
    return this.#chars
  }

  #escaped(text: string): RawJson | string {
    const known = this.#texts.get(text)
    // Moved to the newest end, as it is sent again.
    if (known !== undefined) this.#texts.delete(text)
    if (known) {
      this.#texts.set(text, known)
      return known
    }
    // The second time: escaped from now on. The first: remembered as seen.
    const raw = known === null ? rawJSON!(JSON.stringify(text)) : null
    this.#texts.set(text, raw)
    this.#chars += text.length
    this.#trim()
    return raw ?? text
  }

  #trim(): void {
    for (const [text, raw] of this.#texts) {
      if (this.#chars <= MAX_CACHED_CHARS) return
      this.#texts.delete(text)
      // An escaped text holds about twice its length: the text and its JSON.
      this.#chars -= raw ? text.length * 2 : text.length
    }
  }
}
