import { randomBytes } from "node:crypto"

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
let lastMs = 0
let counter = 0

/**
 * A time-sortable id: `<prefix>_` + 12 hex chars of (ms × 4096 + counter) + 14 random base62 chars.
 * Sorting ids sorts by creation time, within a process also for ids made in the same millisecond.
 */
export function ascending(prefix: string, now = Date.now()): string {
  if (now === lastMs) counter = (counter + 1) % 4096
  else {
    lastMs = now
    counter = 0
  }
  const stamp = (BigInt(now) * 4096n + BigInt(counter)).toString(16).padStart(12, "0").slice(-12)
  return `${prefix}_${stamp}${random(14)}`
}

function random(length: number): string {
  const bytes = randomBytes(length)
  let out = ""
  for (const byte of bytes) out += BASE62[byte % 62]
  return out
}
