// Bounds on a call's input: how deep it may nest before anything recursive sees it, and how much of
// it the journal keeps. Every walk here is iterative, so no input can overflow the stack.

import { createSha256 } from "../util/sha256.ts"
import type { ToolInput } from "./part.ts"

/** Deeper input is refused before validation: no tool takes arguments nested anywhere near this. */
export const MAX_INPUT_DEPTH = 512

/** Inputs estimated larger than this are stored bounded (large strings cut to a head and a digest). */
export const MAX_STORED_INPUT_BYTES = 64 * 1024

/** Characters of a cut string that the journal keeps. */
export const STORED_HEAD_CHARS = 1024

/** Characters hashed per slice: the digest never needs a buffer as large as the value. */
const HASH_SLICE_CHARS = 1 << 20

/** What replaces a value nested deeper than `MAX_INPUT_DEPTH` in the stored input. */
export const TOO_DEEP_MARKER = `[toolbelt: nested deeper than ${MAX_INPUT_DEPTH} levels; not stored]`

/**
 * How deep `value` nests, if deeper than `max` (arrays and objects count one level each); undefined
 * when it stays within `max`. Stops at the first path that goes too deep, so a 200,000-level input
 * costs `max` steps, not 200,000. Objects met twice (shared or circular) are walked once.
 */
export function depthBeyond(value: unknown, max = MAX_INPUT_DEPTH): number | undefined {
  const stack: [unknown, number][] = [[value, 0]]
  const seen = new Set<object>()
  while (stack.length) {
    const [current, depth] = stack.pop()!
    if (typeof current !== "object" || current === null || seen.has(current)) continue
    if (depth + 1 > max) return depth + 1
    seen.add(current)
    for (const child of Object.values(current)) stack.push([child, depth + 1])
  }
  return undefined
}

/**
 * The input as the journal stores it: the input itself when it is small (the same object), otherwise
 * a copy in which the largest strings are cut to their first `STORED_HEAD_CHARS` characters followed
 * by a note giving the value's full size and sha256, so a killed 200 MB write leaves a small record
 * that still says what it was. The call itself always receives the whole input.
 * 1. Walk the input (iteratively), estimating its JSON size and listing its strings.
 * 2. Small and within `MAX_INPUT_DEPTH`: return it unchanged.
 * 3. Copy it, replacing values nested too deep with `TOO_DEEP_MARKER`, and the longest strings with
 *    their head and digest until the estimate fits (strings no longer than a note are kept).
 * 4. Still too large (a huge number of small values): the whole input becomes one note with the
 *    head of its JSON, its size and its sha256.
 */
export function storedInput(input: ToolInput): ToolInput {
  if (checked.has(input)) return input
  const survey = surveyInput(input)
  if (survey.size <= MAX_STORED_INPUT_BYTES && !survey.tooDeep) {
    checked.add(input)
    return input
  }
  let size = survey.size
  const cut = new Set<string>()
  for (const text of survey.strings.sort((a, b) => b.length - a.length)) {
    if (size <= MAX_STORED_INPUT_BYTES || text.length <= STORED_HEAD_CHARS * 2) break
    if (cut.has(text)) continue
    cut.add(text)
    size -= text.length - STORED_HEAD_CHARS * 2
  }
  const stored =
    size > MAX_STORED_INPUT_BYTES ? wholeInputNote(input) : (copyBounded(input, cut) as ToolInput)
  checked.add(stored)
  return stored
}

/**
 * Inputs already known to be within bounds: a call's part carries the same input object through all
 * its states, and the store checks it on every write, so each input is walked once. (Parts are
 * immutable: an input is never changed after it was recorded.)
 */
const checked = new WeakSet<object>()

/** A string as stored: itself when short, else its head and a note with its size and digest. */
export function storedString(text: string): string {
  return text.length <= MAX_STORED_INPUT_BYTES ? text : cutString(text)
}

interface Survey {
  /** Estimated JSON size (characters). */
  size: number
  strings: string[]
  tooDeep: boolean
}

function surveyInput(input: unknown): Survey {
  const survey: Survey = { size: 0, strings: [], tooDeep: false }
  const stack: [unknown, number][] = [[input, 0]]
  while (stack.length) {
    const [value, depth] = stack.pop()!
    if (typeof value === "string") {
      survey.size += value.length + 2
      survey.strings.push(value)
    } else if (typeof value === "object" && value !== null) {
      if (depth >= MAX_INPUT_DEPTH) {
        survey.tooDeep = true
        survey.size += TOO_DEEP_MARKER.length
        continue
      }
      for (const [key, child] of Object.entries(value)) {
        survey.size += key.length + 4
        stack.push([child, depth + 1])
      }
      survey.size += 2
    } else {
      survey.size += 8
    }
  }
  return survey
}

/** A copy of `input` with the strings in `cut` replaced by their notes and too-deep values by a marker. */
function copyBounded(input: unknown, cut: ReadonlySet<string>): unknown {
  const bound = (value: unknown, depth: number): unknown => {
    if (typeof value === "string") return cut.has(value) ? cutString(value) : value
    if (typeof value !== "object" || value === null) return value
    if (depth >= MAX_INPUT_DEPTH) return TOO_DEEP_MARKER
    return Array.isArray(value) ? new Array(value.length) : {}
  }
  const root = bound(input, 0)
  const stack: [source: object, target: Record<string, unknown>, depth: number][] = []
  if (typeof root === "object" && root !== null)
    stack.push([input as object, root as Record<string, unknown>, 0])
  const notes = new Map<string, string>()
  while (stack.length) {
    const [source, target, depth] = stack.pop()!
    for (const [key, child] of Object.entries(source)) {
      let copied: unknown
      if (typeof child === "string" && cut.has(child)) {
        copied = notes.get(child) ?? cutString(child)
        notes.set(child, copied as string)
      } else copied = bound(child, depth + 1)
      target[key] = copied
      if (copied !== child && typeof copied === "object" && copied !== null)
        stack.push([child as object, copied as Record<string, unknown>, depth + 1])
    }
  }
  return root
}

function cutString(text: string): string {
  const { bytes, sha256 } = digest(text)
  const head = text.slice(0, headEnd(text, STORED_HEAD_CHARS))
  return (
    `${head}\n[toolbelt: stored by digest: the journal keeps the first ${head.length} of ` +
    `${text.length} characters of this value (${bytes} bytes, sha256 ${sha256}); the call received it whole]`
  )
}

function wholeInputNote(input: ToolInput): ToolInput {
  let json: string
  try {
    json = JSON.stringify(input) ?? ""
  } catch (error) {
    return { "[toolbelt]": `input not stored: ${(error as Error).message}` }
  }
  return { "[toolbelt]": cutString(json) }
}

/** UTF-8 size and sha256 of `text`, hashed in slices that never split a surrogate pair. */
function digest(text: string): { bytes: number; sha256: string } {
  const hash = createSha256()
  let bytes = 0
  for (let start = 0; start < text.length; ) {
    const end = headEnd(text, start + HASH_SLICE_CHARS)
    const slice = text.slice(start, end)
    bytes += Buffer.byteLength(slice)
    hash.update(slice)
    start = end
  }
  return { bytes, sha256: hash.digest("hex") }
}

/** `end`, moved back one when it would split a surrogate pair (and clamped to the text). */
function headEnd(text: string, end: number): number {
  if (end >= text.length) return text.length
  const code = text.charCodeAt(end - 1)
  return code >= 0xd800 && code <= 0xdbff ? end - 1 : end
}
