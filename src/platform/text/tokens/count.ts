// Exact token counts (o200k_base, gpt-tokenizer), with the tokenizer loaded only when a count is missed.

import { createHash } from "node:crypto"
import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { writeFileAtomic } from "../../fs/atomic-write.ts"

/** The tokenizer counts are made with: OpenAI's o200k_base (GPT-4o and later), a fair proxy for others. */
export const TOKENIZER = "o200k_base"

/** The file under the data dir that keeps counts across starts. */
export const CACHE_FILE = "token-counts.json"

/** Counts kept at most (memory and file): ~60 bytes each, so the file stays under ~1.5 MB. */
export const MAX_CACHED = 25_000

type Counter = (text: string) => number

let counter: Promise<Counter> | undefined
let loaded = false

/** Whether gpt-tokenizer's o200k_base has been imported in this process (it costs ~0.4 s and ~30 MB). */
export function tokenizerLoaded(): boolean {
  return loaded
}

function loadCounter(): Promise<Counter> {
  counter ??= import("gpt-tokenizer/encoding/o200k_base").then((module) => {
    loaded = true
    return (text: string) => module.countTokens(text)
  })
  return counter
}

/** The key a text's count is kept under: short, and the same across processes. */
export function textKey(text: string): string {
  return createHash("sha256").update(text).digest("base64url").slice(0, 22)
}

/**
 * Token counts by text, cached by a hash of the text: in memory, and (with a data dir) in one bounded
 * JSON file written atomically after new counts, so a second start counts nothing. A corrupt or
 * unreadable file is ignored (and replaced at the next save); the tokenizer is imported only when some
 * text has no cached count.
 */
export class TokenCounter {
  readonly #file: string | undefined
  #counts = new Map<string, number>()
  #read: Promise<void> | undefined
  #saving: Promise<void> = Promise.resolve()
  #dirty = false

  constructor(options: { dataDir?: string | undefined } = {}) {
    this.#file = options.dataDir ? join(options.dataDir, CACHE_FILE) : undefined
  }

  /** The o200k_base token count of each text, in order. */
  async count(texts: readonly string[]): Promise<number[]> {
    await this.#load()
    const keys = texts.map(textKey)
    const missing = keys.some((key) => !this.#counts.has(key))
    if (missing) {
      const count = await loadCounter()
      for (let i = 0; i < texts.length; i++) {
        const key = keys[i]!
        if (this.#counts.has(key)) continue
        this.#remember(key, count(texts[i]!))
      }
      this.#dirty = true
      void this.save()
    }
    return keys.map((key) => this.#counts.get(key)!)
  }

  /** Writes the counts kept to the file (no-op without a data dir or without new counts); never throws. */
  save(): Promise<void> {
    const file = this.#file
    if (!file || !this.#dirty) return this.#saving
    this.#dirty = false
    this.#saving = this.#saving
      .then(() => writeFileAtomic(file, JSON.stringify({ v: 1, counts: Object.fromEntries(this.#counts) })))
      .catch(() => {
        // A cache that cannot be written costs a recount at the next start, nothing more.
      })
    return this.#saving
  }

  #remember(key: string, count: number): void {
    // Oldest first out: a Map keeps insertion order.
    this.#counts.delete(key)
    this.#counts.set(key, count)
    while (this.#counts.size > MAX_CACHED) this.#counts.delete(this.#counts.keys().next().value!)
  }

  #load(): Promise<void> {
    this.#read ??= (async () => {
      if (!this.#file) return
      try {
        const parsed = JSON.parse(await readFile(this.#file, "utf8")) as { v?: unknown; counts?: unknown }
        if (parsed?.v !== 1 || typeof parsed.counts !== "object" || parsed.counts === null) return
        for (const [key, value] of Object.entries(parsed.counts as Record<string, unknown>)) {
          if (typeof value === "number" && Number.isInteger(value) && value >= 0) this.#remember(key, value)
        }
      } catch {
        // Missing or corrupt: counted afresh.
      }
    })()
    return this.#read
  }
}
