// The bytes of the messages the stdio wire sends, one per line. An answer that carries a long text an
// answer carried lately (an agent reading the same file again) reuses that text's JSON escaping, kept
// as UTF-8 bytes: the escaping pass over a 40 KB page was a tenth of a read call's time in the server,
// and building the 45 KB line and encoding it for the pipe was as much again, with 90 KB of garbage a
// call. The line goes out as chunks (the message around the text, the text's bytes), written together.
// The bytes are the same as `JSON.stringify`'s.
import { randomHex } from "../../platform/util/random.ts"

/** Strings shorter than this are escaped every time (looking them up would cost about as much). */
export const MIN_CACHED_CHARS = 4096

/** Characters of the texts kept escaped, at most; the least recently sent are forgotten first. */
export const MAX_CACHED_CHARS = 4 * 1024 * 1024

/** One line: its chunks in order, the last ending with the newline. */
export type LineChunks = readonly (string | Buffer)[]

/**
 * Serializes JSON-RPC messages. A long string is escaped once, the first time it is sent, to the UTF-8
 * bytes that then go out every time it is sent again. The first sending costs what writing the line as one
 * string cost (the escaping, then the encoding for the pipe); the second costs nothing more. (Kept only
 * from the second sending, a file read again moments after it changed paid the escaping twice: 180 µs for
 * a 40 KB page of code, whose every line ends in a character JSON escapes.)
 */
export class JsonLines {
  /** Long texts sent lately, and their escaped JSON's bytes. */
  readonly #texts = new Map<string, Buffer>()
  #chars = 0
  /**
   * What stands in for an escaped text while the rest of the message is serialized: NUL, a nonce of
   * this process and a number, NUL. A string of the message equal to it would be taken for the text,
   * so the nonce is random: no message can carry it without having read it from this process.
   */
  readonly #mark = `\u0000${randomHex(8)}:`
  /** The escaped texts met by the serialization under way, in the order their marks were written. */
  #held: Buffer[] = []

  /** `message` as one line of JSON: the bytes `JSON.stringify(message) + "\n"` gives, in chunks. */
  line(message: unknown): LineChunks {
    this.#held = []
    const json = JSON.stringify(message, (_key, value: unknown) =>
      typeof value === "string" && value.length >= MIN_CACHED_CHARS ? this.#stand(value) : value,
    )
    const held = this.#held
    this.#held = []
    if (held.length === 0) return [`${json}\n`]
    const chunks: (string | Buffer)[] = []
    let from = 0
    held.forEach((bytes, index) => {
      // The mark as JSON writes it: quoted, its NULs escaped.
      const mark = JSON.stringify(`${this.#mark}${index}\u0000`)
      const at = json.indexOf(mark, from)
      chunks.push(json.slice(from, at), bytes)
      from = at + mark.length
    })
    chunks.push(`${json.slice(from)}\n`)
    return chunks
  }

  /** How many texts are held escaped (for tests). */
  get escapedTexts(): number {
    return this.#texts.size
  }

  /** Whether `text` is held escaped (for tests). */
  holds(text: string): boolean {
    return this.#texts.has(text)
  }

  /** How many characters of texts are remembered (for tests). */
  get chars(): number {
    return this.#chars
  }

  /** The value serialized in place of `text`: a mark for its escaped bytes. */
  #stand(text: string): string {
    this.#held.push(this.#escaped(text))
    return `${this.#mark}${this.#held.length - 1}\u0000`
  }

  #escaped(text: string): Buffer {
    const known = this.#texts.get(text)
    if (known) {
      // Moved to the newest end, as it is sent again.
      this.#texts.delete(text)
      this.#texts.set(text, known)
      return known
    }
    const bytes = Buffer.from(JSON.stringify(text), "utf8")
    this.#texts.set(text, bytes)
    this.#chars += text.length
    this.#trim()
    return bytes
  }

  #trim(): void {
    for (const text of this.#texts.keys()) {
      if (this.#chars <= MAX_CACHED_CHARS) return
      this.#texts.delete(text)
      this.#chars -= text.length
    }
  }
}
