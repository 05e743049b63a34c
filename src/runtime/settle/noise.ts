// What in a tool's answer changes from run to run while nothing the model cares about does: how long it
// took, when it ran, which process and temp directory it got, random ids. The loop guard compares answers
// with these masked, so a failing test rerun with only its timing changed is still the same answer, while
// a log that really grows (new lines, new words) still differs. Each pattern is linear (no nested
// quantifiers over the same characters), so masking a large answer costs one pass per pattern.

import { sha256Base64url } from "../../platform/util/sha256.ts"
import { TextCache } from "../../platform/util/text-cache.ts"

/** A masked span: the kind of noise between NUL characters (text output never holds those by chance). */
const mark = (kind: string) => `\u0000${kind}\u0000`

const UNIT =
  "(?:ns|nanoseconds?|µs|us|microseconds?|ms|msecs?|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?)"

/**
 * A pattern, what replaces its matches, and a cheap test every text it can match passes (a literal or
 * two the pattern cannot match without: scanning for them costs a tenth of trying the pattern at every
 * word, and most answers have neither a UUID nor a month name). Without the test the pattern runs.
 */
type Pattern = readonly [RegExp, string | ((match: string) => string), RegExp?]

/**
 * `count` copies of a character class in a row. Irregexp runs a class written out n times several times
 * faster than the same class with a counted quantifier (`\d{4}`: 42 µs over a 40 KB page here,
 * `\d\d\d\d`: 15 µs), and the patterns below run over every answer.
 */
const times = (cls: string, count: number) => cls.repeat(count)
const HEX = "[0-9a-fA-F]"
const D2 = times("\\d", 2)
const D4 = times("\\d", 4)

/** Order matters: whole timestamps before the clock times and numbers inside them. */
const PATTERNS: readonly Pattern[] = [
  // UUIDs, then hex ids of 8 or more hex digits with at least one digit and one letter (a git hash, an
  // object address, a request id), so words like "deadbeef" or numbers like "12345678" stay. (Both
  // case by case in their classes: the `i` flag made each pass twice as slow.) Such an id has a digit
  // next to a letter somewhere: a text without one has no id to mask.
  [
    new RegExp(
      `\\b${times(HEX, 8)}-${times(HEX, 4)}-${times(HEX, 4)}-${times(HEX, 4)}-${times(HEX, 12)}\\b`,
      "g",
    ),
    mark("id"),
    new RegExp(`-${times(HEX, 4)}-${times(HEX, 4)}-`),
  ],
  [new RegExp(`\\b(?:0[xX])?${times(HEX, 8)}${HEX}*\\b`, "g"), hexId, /\d[a-fA-F]|[a-fA-F]\d/],
  // ISO 8601 and the like: 2026-11-29T05:58:13.123Z, 2026-11-29 05:58:13+01:00.
  [
    new RegExp(
      `\\b${D4}-${D2}-${D2}(?:[T ]${D2}:${D2}(?::${D2}(?:[.,]\\d+)?)?(?:\\s?(?:Z|UTC|[+-]${D2}:?${D2}))?)?\\b`,
      "g",
    ),
    mark("time"),
    new RegExp(`${D4}-${D2}-${D2}`),
  ],
  // `date`'s own: Sun Nov 29 05:58:13 UTC 2026, and "29 Nov 2026", "Nov 29, 2026".
  [
    new RegExp(
      `\\b(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,?\\s+)?(?:\\d\\d?\\s+)?(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\\.?\\s+\\d\\d?(?:,?\\s+${D4})?\\b`,
      "g",
    ),
    mark("time"),
    /Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec/,
  ],
  [/\b\d\d?\/\d\d?\/\d\d\d?\d?\b/g, mark("time")],
  // Clock times with seconds (05:58:13, 5:58:13.120 PM), not a file's line:column (a.ts:12:50).
  [/(?<![\w.:/-])\d\d?:\d\d:\d\d(?:[.,]\d+)?(?:\s?[AP]M)?\b/gi, mark("time")],
  [/(?<![\w.:/-])\d\d?:\d\d\s?[AP]M\b/gi, mark("time")],
  // Unix time in seconds or milliseconds (2001 to 2286).
  [new RegExp(`\\b1${times("\\d", 9)}(?:${times("\\d", 3)})?\\b`, "g"), mark("time")],
  // Durations: 0.53s, 12ms, 1.2 s, 3 seconds, 1m30s, 0m0.003s, 1h 2m 3s. (Every unit starts with one
  // of n, µ, u, m, s, h.)
  [
    new RegExp(`\\b\\d+(?:[.,]\\d+)?\\s?${UNIT}(?:\\s?\\d+(?:[.,]\\d+)?\\s?${UNIT})*\\b`, "g"),
    mark("duration"),
    /\d\s?[nµumsh]/,
  ],
  // Elapsed counters said in words: "Time: 1.2", "elapsed 00:01:23", "took 5", "duration=42".
  [/\b(elapsed|took|time|duration|runtime)(\s*[:=]?\s*)\d+(?:[.:,]\d+)*/gi, `$1$2${mark("duration")}`],
  // Process ids: "pid 1234", "PID: 1234", "pid=1234", "process 12345" (not "process 3 files").
  [/\b(pid)(\s*[:=#]?\s*)\d+\b/gi, `$1$2${mark("pid")}`],
  [/\b(process)(\s*[:=#]?\s*)\d\d\d+\b/gi, `$1$2${mark("pid")}`],
  // Temp paths: the directory made for this run is noise, the path under it is not.
  [
    /(\/(?:private\/)?(?:tmp|var\/tmp|var\/folders\/[\w.-]+\/[\w.-]+\/T))\/[^\s/'"`:;,)\]}]+/g,
    `$1/${mark("tmp")}`,
  ],
  // Temp directories with a random suffix elsewhere: tmp.AbC123xyz, tmp-1234-abcd, vitest-abc123.
  [/\b(?:tmp|temp)[-_.][\w-][\w-][\w-][\w-]+/gi, mark("tmp")],
]

/**
 * Past this many characters only the first and last half of it are masked (about 0.25 s per MiB of a
 * busy log here); a change in the middle of a huge answer then still tells it apart, which errs on the
 * side of running the call.
 */
export const MASKED_CHARS = 1 << 20

/**
 * The last answers masked, by their text, with the digest of the mask. The guard masks and digests
 * every read-only call's answer, twice (before it answers, and once it settled), and agents read the
 * same unchanged file again and again: the patterns' passes and the hash cost milliseconds on a 40 KB
 * page, a lookup of an equal text one compare. Bounded by the characters kept (texts and masks).
 */
const RECENT_CHARS = 1 << 20
const recent = new TextCache<{ readonly masked: string; digest?: string }>({
  maxChars: RECENT_CHARS,
  maxEntryChars: RECENT_CHARS / 8,
  sizeOf: (text, entry) => text.length + entry.masked.length,
})

/** `text` with durations, timestamps, PIDs, temp paths, random ids and elapsed counters masked. */
export function maskNoise(text: string): string {
  return masking(text).masked
}

/**
 * Digests of masks by the digest of their text, for texts no longer in `recent`: an agent reading 24
 * files in turn (more than `recent` holds) paid the patterns' passes on every read, a millisecond each
 * for a 40 KB page; hashing the text again is a thirtieth of that. Bounded by count (a few KB each).
 */
const byDigest = new Map<string, string>()
const BY_DIGEST = 4096

/**
 * Masks' digests by their text, for texts answered again after `recent` let them go: a text found only
 * through `byDigest` was hashed on every call to be found (an MCP server's warm-up reads filled
 * `recent`, and every later read of a 40 KB file hashed its answer: a fourteenth of the server's time).
 * Bounded by the characters kept; a text asked for again is kept the longest.
 */
const digests = new TextCache<string>({ maxChars: RECENT_CHARS, maxEntryChars: RECENT_CHARS / 8 })

/** SHA-256 (base64url) of `maskNoise(text)`. */
export function maskedDigest(text: string): string {
  const known = recent.get(text)
  if (known !== undefined) {
    known.digest ??= digestOf(known.masked)
    return known.digest
  }
  const kept = digests.get(text)
  if (kept !== undefined) return kept
  const own = digestOf(text)
  const remembered = byDigest.get(own)
  if (remembered !== undefined) {
    digests.set(text, remembered)
    return remembered
  }
  const entry = masking(text)
  entry.digest ??= digestOf(entry.masked)
  if (byDigest.size >= BY_DIGEST) byDigest.delete(byDigest.keys().next().value as string)
  byDigest.set(own, entry.digest)
  return entry.digest
}

function digestOf(text: string): string {
  digested++
  return sha256Base64url(text)
}

function masking(text: string): { readonly masked: string; digest?: string } {
  const known = recent.get(text)
  if (known !== undefined) return known
  const entry = { masked: maskUncached(text) }
  recent.set(text, entry)
  return entry
}

/** How many texts have been hashed in this process, for tests. */
export function digestedTexts(): number {
  return digested
}
let digested = 0

/** How many texts have been masked (not found remembered) in this process, for tests. */
export function maskedTexts(): number {
  return masked
}
let masked = 0

function maskUncached(text: string): string {
  masked++
  if (text.length <= MASKED_CHARS) return maskAll(text)
  // Cut at line ends, so no timestamp is split into halves that no longer look like one.
  const half = MASKED_CHARS / 2
  const headEnd = lineEnd(text, half)
  const tailStart = Math.max(headEnd, lineEnd(text, text.length - half))
  return maskAll(text.slice(0, headEnd)) + text.slice(headEnd, tailStart) + maskAll(text.slice(tailStart))
}

/** Every pattern tried, none skipped by its test: what masking must equal (for tests). */
export function maskEveryPattern(text: string): string {
  let out = text
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement as string)
  return out
}

function maskAll(text: string): string {
  let out = text
  for (const [pattern, replacement, needs] of PATTERNS) {
    if (needs && !needs.test(out)) continue
    out = out.replace(pattern, replacement as string)
  }
  return out
}

/** The index after the first newline at or past `from` (the text's end when there is none). */
function lineEnd(text: string, from: number): number {
  const at = text.indexOf("\n", from)
  return at === -1 ? text.length : at + 1
}

/** A run of hex digits is an id when it mixes digits and letters (not a word, not a plain number). */
function hexId(match: string): string {
  const digits = match.startsWith("0x") || match.startsWith("0X") ? match.slice(2) : match
  return /\d/.test(digits) && /[a-f]/i.test(digits) ? mark("id") : match
}
