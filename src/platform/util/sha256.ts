import type * as NodeCrypto from "node:crypto"
import { createRequire } from "node:module"
import { sha256Bytes } from "./sha256-js.ts"

/**
 * SHA-256 without paying for node:crypto where it is not needed yet. Loading node:crypto costs ~10 ms
 * (its JavaScript: keys, ciphers, webcrypto), a fifth of Node's own start, and a command such as
 * `toolbelt tools` or `toolbelt call read` on a small file hashes only a few hundred bytes. So until
 * node:crypto is loaded, inputs up to JS_LIMIT bytes are hashed in JavaScript (sha256-js.ts: the same
 * digest, a few µs a block); a larger input, or any hash once node:crypto is loaded, is native.
 */
export interface Sha256 {
  update(data: string | Uint8Array): Sha256
  digest(): Buffer
  digest(encoding: "hex" | "base64" | "base64url"): string
}

/**
 * Above this many bytes a hash loads node:crypto (hashing 8 KB in JavaScript, cold, takes ~2 ms; native
 * is ~10x faster once warm). Past JS_BUDGET bytes hashed in JavaScript, the process is doing more than
 * starting: every later hash is native.
 */
export const JS_LIMIT = 8 * 1024
const JS_BUDGET = 64 * 1024
let jsBytes = 0

let crypto: typeof NodeCrypto | undefined

/** node:crypto, loaded on first use (runtimes without getBuiltinModule, older Bun, through require). */
export function nodeCrypto(): typeof NodeCrypto {
  crypto ??=
    typeof process.getBuiltinModule === "function"
      ? process.getBuiltinModule("node:crypto")
      : (createRequire(import.meta.url)("node:crypto") as typeof NodeCrypto)
  return crypto
}

/**
 * Says that about `bytes` bytes are about to be hashed: past what JavaScript hashes faster than
 * node:crypto loads (JS_LIMIT), node:crypto is loaded now, so no part of them is hashed in JavaScript
 * first (72 KB of tool texts took 7-10 ms in JavaScript, cold: as long as the load).
 */
export function willHash(bytes: number): void {
  if (crypto === undefined && bytes > JS_LIMIT) nodeCrypto()
}

/** An incremental SHA-256: UTF-8 for strings, as node:crypto's Hash. */
export function createSha256(): Sha256 {
  return new LazySha256()
}

/** SHA-256 of a string, base64url. */
export function sha256Base64url(text: string): string {
  if (crypto === undefined && jsBytes < JS_BUDGET && text.length <= JS_LIMIT / 3)
    return createSha256().update(text).digest("base64url")
  const native = nodeCrypto()
  // The one-shot `crypto.hash` makes no Hash object per call; older Bun has only createHash.
  return typeof native.hash === "function"
    ? native.hash("sha256", text, "base64url")
    : native.createHash("sha256").update(text).digest("base64url")
}

class LazySha256 implements Sha256 {
  #native: NodeCrypto.Hash | undefined
  #pending: Uint8Array[] = []
  #size = 0
  #done = false

  constructor() {
    if (crypto !== undefined || jsBytes >= JS_BUDGET) this.#native = nodeCrypto().createHash("sha256")
  }

  update(data: string | Uint8Array): Sha256 {
    if (this.#done) throw new Error("Digest already called: make a new hash for new data.")
    if (this.#native) {
      this.#native.update(data)
      return this
    }
    // A string of n UTF-16 units is at most 3n UTF-8 bytes: no need to encode it to know it is too big.
    if (
      typeof data === "string" &&
      this.#size + data.length * 3 > JS_LIMIT &&
      this.#size + Buffer.byteLength(data) > JS_LIMIT
    )
      return this.#goNative().update(data)
    const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data
    if (this.#size + bytes.length > JS_LIMIT) return this.#goNative().update(bytes)
    // Copied: a caller may reuse its buffer for the next chunk before the digest.
    this.#pending.push(typeof data === "string" ? bytes : Uint8Array.prototype.slice.call(bytes))
    this.#size += bytes.length
    return this
  }

  digest(): Buffer
  digest(encoding: "hex" | "base64" | "base64url"): string
  digest(encoding?: "hex" | "base64" | "base64url"): Buffer | string {
    if (this.#done) throw new Error("Digest already called: make a new hash for new data.")
    this.#done = true
    if (this.#native) return encoding ? this.#native.digest(encoding) : this.#native.digest()
    const whole = this.#pending.length === 1 ? this.#pending[0]! : Buffer.concat(this.#pending)
    this.#pending = []
    jsBytes += whole.length
    const out = Buffer.from(sha256Bytes(whole))
    return encoding ? out.toString(encoding) : out
  }

  #goNative(): this {
    const native = nodeCrypto().createHash("sha256")
    for (const chunk of this.#pending) native.update(chunk)
    this.#pending = []
    this.#native = native
    return this
  }
}
