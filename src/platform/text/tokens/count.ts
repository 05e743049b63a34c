// Exact token counts (o200k_base, gpt-tokenizer), counted off the main thread and only when missed.

import { readFileSync } from "node:fs"
import { join } from "node:path"
import { Worker } from "node:worker_threads"
import { writeFileAtomic } from "../../fs/atomic-write.ts"
import { createSha256, willHash } from "../../util/sha256.ts"
import { TextCache } from "../../util/text-cache.ts"

/** The tokenizer counts are made with: OpenAI's o200k_base (GPT-4o and later), a fair proxy for others. */
export const TOKENIZER = "o200k_base"

/** The file under the data dir that keeps counts across starts. */
export const CACHE_FILE = "token-counts.json"

/** Counts kept at most (memory and file): ~60 bytes each, so the file stays under ~1.5 MB. */
export const MAX_CACHED = 25_000

/**
 * The texts counted last are also kept whole, up to this many characters in all, so that a start that
 * lists the same tools again finds their counts without hashing them: a start's 17 tool definitions are
 * ~36 KB, whose SHA-256 keys cost ~10 ms (node:crypto's load) of `toolbelt tools`.
 */
export const RECENT_CHARS = 256 * 1024

let used = false

/**
 * Whether this process has counted with the tokenizer (in a worker, or in process where workers fail):
 * a toolbelt that needs no count (built-ins only, `off`, `on`) never does.
 */
export function tokenizerLoaded(): boolean {
  return used
}

/**
 * Counts texts in a worker thread of its own, which loads the tokenizer, counts and ends: the ~0.4 s
 * load and the counting leave the event loop free, and the tokenizer's memory is given back. Where a
 * worker cannot start, the tokenizer is imported here instead.
 */
async function countOffThread(texts: readonly string[]): Promise<number[]> {
  used = true
  const extension = import.meta.url.endsWith(".ts") ? ".ts" : ".js"
  try {
    return await new Promise<number[]>((resolve, reject) => {
      const worker = new Worker(new URL(`./count-worker${extension}`, import.meta.url), { workerData: texts })
      worker.once("message", (counts: number[]) => {
        resolve(counts)
        void worker.terminate()
      })
      worker.once("error", reject)
      worker.once("exit", (code) =>
        reject(new Error(`The token-count worker exited (code ${code}) without counts.`)),
      )
    })
  } catch {
    const { countTokens } = await import("gpt-tokenizer/encoding/o200k_base")
    return texts.map((text) => countTokens(text))
  }
}

/** The key a text's count is kept under: short, and the same across processes. */
export function textKey(text: string): string {
  return createSha256().update(text).digest("base64url").slice(0, 22)
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
  /** Counts by the whole text, of the texts counted or asked for last (RECENT_CHARS in all), oldest first. */
  readonly #recent = new TextCache<number>({ maxChars: RECENT_CHARS })
  /** Counts being made, by key: two listings at once start one worker for the same texts. */
  readonly #pending = new Map<string, Promise<number>>()
  #read: Promise<void> | undefined
  #saving: Promise<void> = Promise.resolve()
  #dirty = false
  #closed = false

  constructor(options: { dataDir?: string | undefined } = {}) {
    this.#file = options.dataDir ? join(options.dataDir, CACHE_FILE) : undefined
  }

  /** The o200k_base token count of each text, in order. */
  async count(texts: readonly string[]): Promise<number[]> {
    await this.#load()
    // A text found is kept the longest (the file is not written for that alone).
    const counts = texts.map((text) => this.#recent.get(text))
    const missing = texts.filter((_, i) => counts[i] === undefined)
    if (missing.length === 0) return counts as number[]
    const counted = await this.#countByKey(missing)
    let at = 0
    texts.forEach((text, i) => {
      if (counts[i] !== undefined) return
      counts[i] = counted[at++]!
      this.#rememberText(text, counts[i])
    })
    // One write for what this count added, keyed and whole; none later at close.
    if (this.#dirty) void this.save()
    return counts as number[]
  }

  async #countByKey(texts: readonly string[]): Promise<number[]> {
    willHash(texts.reduce((bytes, text) => bytes + text.length, 0))
    const keys = texts.map(textKey)
    // Read before anything is awaited: a bounded cache may drop an old count while this one waits.
    const known = new Map<string, number | Promise<number>>()
    const missing = new Map<string, string>()
    keys.forEach((key, i) => {
      const count = this.#counts.get(key) ?? this.#pending.get(key)
      if (count !== undefined) known.set(key, count)
      else missing.set(key, texts[i]!)
    })
    if (missing.size > 0) {
      const batch = countOffThread([...missing.values()])
      ;[...missing.keys()].forEach((key, at) => {
        const one = batch.then((counts) => counts[at]!)
        known.set(key, one)
        this.#pending.set(key, one)
      })
      try {
        const counts = await batch
        let at = 0
        for (const key of missing.keys()) this.#remember(key, counts[at++]!)
      } finally {
        for (const key of missing.keys()) this.#pending.delete(key)
      }
      this.#dirty = true
    }
    return Promise.all(keys.map((key) => known.get(key)!))
  }

  /**
   * Waits for the counts being made, saves, and saves nothing after: a caller that removes the data dir
   * once its toolbelt closed must not race a late write of the cache file.
   */
  async close(): Promise<void> {
    await Promise.allSettled([...this.#pending.values()])
    await this.save()
    this.#closed = true
    await this.#saving
  }

  /** Writes the counts kept to the file (no-op without a data dir or without new counts); never throws. */
  save(): Promise<void> {
    const file = this.#file
    if (!file || !this.#dirty || this.#closed) return this.#saving
    this.#dirty = false
    this.#saving = this.#saving
      .then(() =>
        writeFileAtomic(
          file,
          JSON.stringify({
            v: 1,
            counts: Object.fromEntries(this.#counts),
            recent: [...this.#recent.entries()],
          }),
        ),
      )
      .catch(() => {
        // A cache that cannot be written costs a recount at the next start, nothing more.
      })
    return this.#saving
  }

  /** Keeps `text` whole with its count (the oldest texts go past RECENT_CHARS). */
  #rememberText(text: string, count: number): void {
    if (this.#recent.get(text) === count) return
    if (this.#recent.set(text, count)) this.#dirty = true
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
        const parsed = JSON.parse(readFileSync(this.#file, "utf8")) as {
          v?: unknown
          counts?: unknown
          recent?: unknown
        }
        if (parsed?.v !== 1 || typeof parsed.counts !== "object" || parsed.counts === null) return
        for (const [key, value] of Object.entries(parsed.counts as Record<string, unknown>)) {
          if (isCount(value)) this.#remember(key, value)
        }
        if (Array.isArray(parsed.recent))
          for (const entry of parsed.recent as unknown[]) {
            if (Array.isArray(entry) && typeof entry[0] === "string" && isCount(entry[1]))
              this.#rememberText(entry[0], entry[1])
          }
        // What was read is what the file holds: nothing to write back.
        this.#dirty = false
      } catch {
        // Missing or corrupt: counted afresh.
      }
    })()
    return this.#read
  }
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0
}
