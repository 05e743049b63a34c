// What the loop guard keeps of a call (doom-loop.ts): its input (a short key as it is, a long one as a
// digest) and a digest of its answer, the answer's taken only once a call it may be compared with comes.
import { sha256Base64url } from "../../platform/util/sha256.ts"
import { maskedDigest } from "./noise.ts"

/**
 * Call keys this short stand for themselves: hashing one cost a call 10 µs on a busy server (OpenSSL's
 * code is cold between calls), more than comparing it. Longer keys are kept as their SHA-256, so the
 * guard's memory stays small. A kept key has a NUL (after the tool) and a digest has none, so the two
 * never equal each other.
 */
export const MAX_PLAIN_KEY_CHARS = 128

/** How a call's input is remembered: its key if short, else the key's digest. */
export function inputIdentity(key: string): string {
  return key.length <= MAX_PLAIN_KEY_CHARS ? key : sha256Base64url(key)
}

/** A call as the guard remembers it. */
export interface Recorded {
  readonly tool: string
  /** `callKey(call)`, or its SHA-256 when longer than `MAX_PLAIN_KEY_CHARS` (`inputIdentity`). */
  readonly input: string
  /**
   * The input as kept and the digest of its answer (noise masked), joined by a NUL; none for a poll,
   * which equals no other call, nor for an answer no later call could be compared with (`RecordedCall`).
   */
  readonly key: string | undefined
}

/**
 * A call as `recordOf` makes it: its answer's key is taken when first asked for. Detection compares
 * keys only of calls with the same input (a key covers the input), so an answer whose input no nearby
 * call repeats is never keyed: masking a 40 KB page of new content was most of a read's own time, for a
 * key that, for an agent reading file after file, nothing ever looked at. The answer waits in the record
 * until then, and at most until the record leaves what detection looks at (`settleKey`).
 */
export class RecordedCall implements Recorded {
  readonly tool: string
  readonly input: string
  #key: string | undefined
  /** The answer whose key is still to be taken. */
  #answer: string | undefined
  /** The guard's count of unkeyed answers, once recorded with this one among them. */
  #counted: Unkeyed | undefined

  constructor(tool: string, input: string, answer: string | undefined) {
    this.tool = tool
    this.input = input
    this.#answer = answer
  }

  get key(): string | undefined {
    const answer = this.#answer
    if (answer !== undefined) {
      this.#release()
      // A rerun that differs only in its timing or ids answered the same. The input and the digest as
      // they are (not hashed together: they are short, and a hash is ~10 µs of cold OpenSSL a call): the
      // digest is the last 43 characters, so two keys are equal only for the same input and answer.
      this.#key = `${this.input}\u0000${maskedDigest(answer)}`
    }
    return this.#key
  }

  /** Whether the key is still to be taken. */
  get unkeyed(): boolean {
    return this.#answer !== undefined
  }

  /**
   * Recorded by a guard: the answer waits among its unkeyed ones, unless it is too long to hold or the
   * guard holds enough already; it is then keyed now.
   */
  wait(unkeyed: Unkeyed): void {
    const answer = this.#answer
    if (answer === undefined || this.#counted) return
    if (answer.length > MAX_UNKEYED_ANSWER_CHARS || unkeyed.chars + answer.length > MAX_UNKEYED_CHARS) {
      void this.key
      return
    }
    unkeyed.chars += answer.length
    this.#counted = unkeyed
  }

  /** Drops the answer unkeyed: the record equals no other from now on. */
  forget(): void {
    this.#release()
  }

  #release(): void {
    if (this.#counted && this.#answer !== undefined) this.#counted.chars -= this.#answer.length
    this.#counted = undefined
    this.#answer = undefined
  }
}

/** A guard's count of the characters of the answers its records hold unkeyed. */
export interface Unkeyed {
  chars: number
}

/**
 * The most a guard holds of answers not yet keyed, and the longest it holds. Most are the same strings
 * other caches hold (read's pages); a longer answer, or one past the budget, is keyed at once, as every
 * answer once was.
 */
const MAX_UNKEYED_CHARS = 4 * 1024 * 1024
const MAX_UNKEYED_ANSWER_CHARS = 512 * 1024

/**
 * For the record at `index`, which just left what detection looks at: it can still be compared only
 * as part of a run reaching back from nearer calls, which needs a call within `maxCycle` after it with
 * its input (a repeat is a run of one input; a cycle's calls recur `length` apart). Such a record is
 * keyed now, while its answer is at hand; any other is dropped unkeyed: no run can pass through it.
 */
export function settleKey(history: readonly Recorded[], index: number, maxCycle: number): void {
  const record = history[index]
  if (!(record instanceof RecordedCall) || !record.unkeyed) return
  const last = Math.min(history.length - 1, index + Math.max(1, maxCycle))
  for (let later = index + 1; later <= last; later++) {
    if (history[later]!.input === record.input) {
      void record.key
      return
    }
  }
  record.forget()
}
