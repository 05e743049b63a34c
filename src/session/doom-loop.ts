import { createHash } from "node:crypto"
import type { AskInput } from "../tool/context.ts"
import { MAX_INPUT_DEPTH, TOO_DEEP_MARKER } from "./input-bounds.ts"

/** One tool call as doom-loop detection sees it. */
export interface Call {
  readonly tool: string
  readonly input: unknown
}

export type DoomLoop =
  /** The same call (tool and input) `count` times in a row, the next call included. */
  | { readonly kind: "repeat"; readonly tool: string; readonly count: number }
  /**
   * A sequence of `length` calls repeated `repeats` times in a row, ending with the next call. `tools`
   * names the calls of one period in order, the last being the next call's tool.
   */
  | { readonly kind: "cycle"; readonly tools: string[]; readonly length: number; readonly repeats: number }

export interface DoomLoopOptions {
  /** How many times a call, or a cycle, must occur in a row (the next call included). Default 3. */
  readonly threshold?: number
  /** The longest cycle looked for (cycles have 2 to `maxCycle` calls); below 2, none. Default 3. */
  readonly maxCycle?: number
}

export const DEFAULT_THRESHOLD = 3
export const DEFAULT_MAX_CYCLE = 3

/**
 * Whether `next` would continue a loop in `history` (the session's recent calls, oldest first, across
 * messages and turns).
 *
 * 1. Key every call by its tool and the canonical JSON of its input (object key order ignored).
 * 2. Repeat: `next` and the calls right before it are the same call, `threshold` times or more.
 * 3. Cycle: for each length 2..`maxCycle` (shortest first), the calls ending with `next` repeat with
 *    that period for at least `threshold` full periods, and the period is not one call repeated.
 *
 * A repeat is reported before a cycle; `count` and `repeats` measure the whole run found in `history`.
 * Pure: the same arguments always give the same answer.
 */
export function detectDoomLoop(
  history: readonly Call[],
  next: Call,
  options: DoomLoopOptions = {},
): DoomLoop | undefined {
  const { threshold, maxCycle } = resolveOptions(options)
  const calls = [...history, next]
  // Keyed lazily from the end: detection walks back only as far as a loop extends.
  const keys: (string | undefined)[] = new Array(calls.length)
  const key = (index: number): string => (keys[index] ??= callKey(calls[index]!))
  return detect(calls, key, threshold, maxCycle)
}

/**
 * The key of a call: its tool and the canonical JSON of its input. Inputs that serialise alike are the
 * same call (`{a: 1, b: undefined}` and `{a: 1}`, as the model would send them).
 */
export function callKey(call: Call): string {
  return `${call.tool}\u0000${canonicalJson(call.input)}`
}

/** JSON with object keys sorted at every depth; values JSON cannot hold are written as JSON would. */
export function canonicalJson(value: unknown): string {
  return write(value, new Set(), 0) ?? "null"
}

export interface DoomLoopGuardOptions extends DoomLoopOptions {
  /** Recent calls kept per session (at least what detection needs). Default 50. */
  readonly historySize?: number
  /** Sessions tracked at once; the least recently active is forgotten first. Default 1,000. */
  readonly maxSessions?: number
}

/**
 * Keeps each session's recent calls (bounded) and checks the next one against them. The runner checks
 * a call before running it (asking `doom_loop` when a loop is found) and records it once it is made.
 */
export class DoomLoopGuard {
  readonly threshold: number
  readonly maxCycle: number
  readonly historySize: number
  readonly maxSessions: number
  /** Insertion order is recency: a session touched is moved to the end. */
  readonly #sessions = new Map<string, Recorded[]>()

  constructor(options: DoomLoopGuardOptions = {}) {
    const { threshold, maxCycle } = resolveOptions(options)
    this.threshold = threshold
    this.maxCycle = maxCycle
    const historySize = options.historySize ?? 50
    const maxSessions = options.maxSessions ?? 1000
    if (!Number.isInteger(historySize) || historySize < 0) {
      throw new RangeError(`historySize must be a non-negative integer, got ${historySize}`)
    }
    if (!Number.isInteger(maxSessions) || maxSessions < 1) {
      throw new RangeError(`maxSessions must be a positive integer, got ${maxSessions}`)
    }
    // A history shorter than the longest loop looked for could never show it.
    this.historySize = Math.max(historySize, window(threshold, maxCycle))
    this.maxSessions = maxSessions
  }

  /** Remembers a call the session made. */
  record(sessionID: string, call: Call): void {
    this.#remember(sessionID, recorded(call))
  }

  /** `check` then `record`, digesting the call once: what a runner does before each call. */
  observe(sessionID: string, next: Call): DoomLoop | undefined {
    const entry = recorded(next)
    const calls = [...(this.#sessions.get(sessionID) ?? []), entry]
    const loop = detect(calls, (index) => calls[index]!.digest, this.threshold, this.maxCycle)
    this.#remember(sessionID, entry)
    return loop
  }

  #remember(sessionID: string, entry: Recorded): void {
    const history = this.#sessions.get(sessionID) ?? []
    this.#sessions.delete(sessionID)
    history.push(entry)
    if (history.length > this.historySize) history.splice(0, history.length - this.historySize)
    this.#sessions.set(sessionID, history)
    if (this.#sessions.size > this.maxSessions) {
      const oldest = this.#sessions.keys().next().value
      if (oldest !== undefined) this.#sessions.delete(oldest)
    }
  }

  /** Whether `next` would continue a loop in the session's recent calls. Does not record it. */
  check(sessionID: string, next: Call): DoomLoop | undefined {
    const history = this.#sessions.get(sessionID) ?? []
    const calls = [...history, recorded(next)]
    return detect(calls, (index) => calls[index]!.digest, this.threshold, this.maxCycle)
  }

  /**
   * The session's recent calls, oldest first: each tool and a digest of its key (inputs are not kept,
   * so a session that writes large files does not hold them here).
   */
  history(sessionID: string): Recorded[] {
    return [...(this.#sessions.get(sessionID) ?? [])]
  }

  /** Forgets a session (it ended, or its loop was dealt with). */
  forget(sessionID: string): void {
    this.#sessions.delete(sessionID)
  }
}

/**
 * The `doom_loop` permission request for a detected loop: its patterns (and what "always" remembers)
 * are the tool names involved, as opencode's are, and its metadata describes the loop.
 */
export function doomLoopAsk(loop: DoomLoop, next: Call): AskInput {
  const tools = loop.kind === "repeat" ? [loop.tool] : [...new Set(loop.tools)]
  return {
    permission: "doom_loop",
    patterns: tools,
    always: tools,
    metadata: { ...loop, summary: describeDoomLoop(loop), tool: next.tool, input: next.input },
  }
}

/** One sentence for people and models: what is being repeated. */
export function describeDoomLoop(loop: DoomLoop): string {
  if (loop.kind === "repeat") {
    return `${loop.tool} was called ${loop.count} times in a row with the same input`
  }
  return `The same ${loop.length} calls (${loop.tools.join(", ")}) were repeated ${loop.repeats} times in a row`
}

/** A call as the guard remembers it. */
export interface Recorded {
  readonly tool: string
  /** SHA-256 of `callKey(call)`. */
  readonly digest: string
}

function recorded(call: Call): Recorded {
  return { tool: call.tool, digest: createHash("sha256").update(callKey(call)).digest("base64url") }
}

function resolveOptions(options: DoomLoopOptions): { threshold: number; maxCycle: number } {
  const threshold = options.threshold ?? DEFAULT_THRESHOLD
  const maxCycle = options.maxCycle ?? DEFAULT_MAX_CYCLE
  if (!Number.isInteger(threshold) || threshold < 2) {
    throw new RangeError(`The doom-loop threshold must be an integer of at least 2, got ${threshold}`)
  }
  if (!Number.isInteger(maxCycle) || maxCycle < 0) {
    throw new RangeError(`maxCycle must be a non-negative integer, got ${maxCycle}`)
  }
  return { threshold, maxCycle }
}

/** How many previous calls detection needs to see. */
function window(threshold: number, maxCycle: number): number {
  return Math.max(threshold, maxCycle * threshold) - 1
}

/** Detection over calls and their keys; the last call is the next one. */
function detect(
  calls: readonly { readonly tool: string }[],
  key: (index: number) => string,
  threshold: number,
  maxCycle: number,
): DoomLoop | undefined {
  const last = calls.length - 1
  const next = calls[last]!
  const nextKey = key(last)

  let count = 1
  while (count <= last && key(last - count) === nextKey) count++
  if (count >= threshold) return { kind: "repeat", tool: next.tool, count }

  for (let length = 2; length <= maxCycle; length++) {
    if (calls.length < length * threshold) break
    // One call repeated is a repeat, not a cycle (and was not enough of one above).
    let single = true
    for (let i = 1; i < length && single; i++) single = key(last - i) === nextKey
    if (single) continue
    // `run` counts the trailing calls that equal the call one period later.
    let run = length
    while (run <= last && key(last - run) === key(last - run + length)) run++
    const repeats = Math.floor(run / length)
    if (repeats < threshold) continue
    return {
      kind: "cycle",
      tools: calls.slice(calls.length - length).map((call) => call.tool),
      length,
      repeats,
    }
  }
  return undefined
}

/** Recursive, so bounded: past `MAX_INPUT_DEPTH` a value is written as a marker, never walked. */
function write(value: unknown, seen: Set<object>, depth: number): string | undefined {
  if (value === null) return "null"
  switch (typeof value) {
    case "string":
    case "boolean":
      return JSON.stringify(value)
    case "number":
      return Number.isFinite(value) ? JSON.stringify(value) : "null"
    case "bigint":
      return JSON.stringify(value.toString())
    case "undefined":
    case "function":
    case "symbol":
      return undefined
  }
  if (depth > MAX_INPUT_DEPTH) return JSON.stringify(TOO_DEEP_MARKER)
  const object = value as object & { toJSON?: () => unknown }
  if (typeof object.toJSON === "function") return write(object.toJSON(), seen, depth)
  if (seen.has(object)) return JSON.stringify("[Circular]")
  seen.add(object)
  try {
    if (Array.isArray(object))
      return `[${object.map((item) => write(item, seen, depth + 1) ?? "null").join(",")}]`
    const entries: string[] = []
    for (const key of Object.keys(object).sort()) {
      const item = write((object as Record<string, unknown>)[key], seen, depth + 1)
      if (item !== undefined) entries.push(`${JSON.stringify(key)}:${item}`)
    }
    return `{${entries.join(",")}}`
  } finally {
    seen.delete(object)
  }
}
