import { randomByte } from "./random.ts"

const TIME_HEX = 12
const RANDOM_CHARS = 14
export const PER_MS = 4096
/** 12 hex digits hold 48 bits, 12 of them the counter: the millisecond clock is kept modulo 2^36 (~795 days). */
export const TIME_WRAP = 2 ** 36
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

let lastMs = -1
let counter = 0

/**
 * A time-sortable id body: 12 hex digits of (ms × 4096 + a per-process counter), then 14 random base62 characters.
 * The layout is opencode's, so names sort by creation time and carry their own age, which lets the
 * sweeper decide without a stat call. The counter restarts every millisecond and keeps ids from one
 * process ordered within it; the random tail keeps processes apart.
 */
export function timeSortable(now: number = Date.now()): string {
  const ms = Math.floor(now)
  counter = ms === lastMs ? (counter + 1) % PER_MS : 0
  lastMs = ms
  const stamp = (ms % TIME_WRAP) * PER_MS + counter
  return stamp.toString(16).padStart(TIME_HEX, "0") + randomBase62(RANDOM_CHARS)
}

/** A prefixed time-sortable id, e.g. `prt_0a1b2c3d4e5fAbCdEfGhIjKlMn`. */
export function ascending(prefix: string, now: number = Date.now()): string {
  return `${prefix}_${timeSortable(now)}`
}

/** Unbiased: bytes that would favour the first characters of the alphabet are drawn again. */
function randomBase62(length: number): string {
  let out = ""
  while (out.length < length) {
    const byte = randomByte()
    if (byte < 248) out += BASE62[byte % 62]
  }
  return out
}
