import type { ToolState } from "../../platform/store/part.ts"
import type { FilePart } from "../../platform/text/content.ts"
import { TextCache } from "../../platform/util/text-cache.ts"
import type { AskInput } from "../tool/context.ts"
import { CallHistory } from "./call-history.ts"
import { canonicalJson } from "./canonical-json.ts"
import { inputIdentity, type Recorded, RecordedCall, settleKey, type Unkeyed } from "./recorded-call.ts"

export { canonicalJson } from "./canonical-json.ts"
export type { Recorded } from "./recorded-call.ts"

/** One tool call as doom-loop detection sees it. */
export interface Call {
  readonly tool: string
  readonly input: unknown
}

/** A call that was made, with what it answered. */
export interface Answered extends Call {
  /** The answer as the caller saw it (see `answerOf`); only its digest is kept. */
  readonly answer: string
  /**
   * The tool said the answer is a look at something still changing (a running job): such a call is
   * never part of a loop, whatever it answered, and it breaks the run it is in.
   */
  readonly poll?: boolean
}

export type DoomLoop =
  /**
   * The same call `count` times in a row, the next call included, each earlier one answered the same:
   * running it again would answer the same again.
   */
  | { readonly kind: "repeat"; readonly tool: string; readonly count: number }
  /**
   * A sequence of `length` calls repeated `repeats` times in a row with the same answers, ending with
   * the next call. `tools` names the calls of one period in order, the last being the next call's tool.
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
 * Whether `next` would continue a loop in `history` (the session's recent calls with their answers,
 * oldest first, across messages and turns). A loop is the same call getting the same answer while
 * nothing changes, so the decision, taken before `next` runs, is about the calls before it:
 *
 * 1. Key every earlier call by its tool, the canonical JSON of its input (object key order ignored)
 *    and its answer with its noise masked (durations, timestamps, PIDs, temp paths, random ids:
 *    `noise.ts`); a call whose target changed answered differently, so it has another key, and a
 *    poll has none (it equals nothing).
 * 2. Repeat: the calls right before `next` have its input and one same answer, `threshold - 1` times
 *    or more.
 * 3. Cycle: for each length 2..`maxCycle` (shortest first), the call one period back has `next`'s input
 *    and the calls up to it repeat with that period, answers included, so that with `next` answering
 *    as it did one period back there are `threshold` full periods; the period is not one call repeated.
 * 4. When `next` already ran (it is `Answered`), it must also have answered as the call it repeats did:
 *    then a call whose target changed since is never counted, even the first one after the change.
 *
 * A repeat is reported before a cycle; `count` and `repeats` measure the whole run found in `history`.
 * Pure: the same arguments always give the same answer.
 */
export function detectDoomLoop(
  history: readonly Answered[],
  next: Call | Answered,
  options: DoomLoopOptions = {},
): DoomLoop | undefined {
  const { threshold, maxCycle } = resolveOptions(options)
  return detect(history.map(recordOf), pending(next), threshold, maxCycle)
}

/**
 * The key of a call: its tool and the canonical JSON of its input. Inputs that serialise alike are the
 * same call (`{a: 1, b: undefined}` and `{a: 1}`, as the model would send them).
 */
export function callKey(call: Call): string {
  return `${call.tool}\u0000${canonicalJson(call.input)}`
}

/**
 * What a finished call answered, as the guard compares it: its status and what the caller read (the
 * output and attachments, or the error). The journal's parts give the same answer for an output that
 * was not cut, so a session resumed from the journal keeps its history. Undefined for what is no
 * answer: a call not finished, interrupted, or refused by the guard (refusing changes nothing).
 */
export function answerOf(state: ToolState): string | undefined {
  if (state.status === "completed") return completedAnswer(state.output, state.attachments ?? [])
  if (state.status !== "error") return undefined
  if (state.metadata?.interrupted === true || state.metadata?.doomLoop === true) return undefined
  return errorAnswer(state.error)
}

/** The answer of a call that completed with `output` (see `answerOf`). */
export function completedAnswer(output: string, attachments: readonly FilePart[]): string {
  if (attachments.length === 0 && output.length >= REMEMBERED_ANSWER_CHARS) {
    const known = answers.get(output)
    if (known !== undefined) return known
    const answer = `completed\u0000${output}`
    answers.set(output, answer)
    return answer
  }
  let answer = `completed\u0000${output}`
  for (const file of attachments) answer += `\u0000${file.url}`
  return answer
}

/**
 * The answers of long outputs lately answered, by their output. A new answer string is a rope of the
 * prefix and the output, which looking it up among the guard's masks (noise.ts) first copies flat and
 * hashes whole: 43 KB copied and 9 µs for each lookup of a 40 KB page, twice a call. A tool that answers
 * the same output again (read's cached pages are the same string) finds its answer here by the output,
 * whose hash V8 keeps, and the guard then finds that very string, hashed once.
 */
const answers = new TextCache<string>({
  maxChars: 1 << 20,
  maxEntryChars: 1 << 17,
  sizeOf: (output) => output.length * 2,
})
const REMEMBERED_ANSWER_CHARS = 4096

/** The answer of a call that failed with `error` (see `answerOf`). */
export function errorAnswer(error: string): string {
  return `error\u0000${error}`
}

export interface DoomLoopGuardOptions extends DoomLoopOptions {
  /** Recent calls kept per session (at least what detection needs). Default 50. */
  readonly historySize?: number
  /** Sessions tracked at once; the least recently active is forgotten first. Default 1,000. */
  readonly maxSessions?: number
}

/**
 * Keeps each session's recent calls and their answers (bounded, as digests) and checks the next call
 * against them. The runner checks a call before running it (asking `doom_loop` when a loop is found)
 * and records it with its answer once it settled; a call that was refused or interrupted is not
 * recorded, so refusing it changes nothing and the same call is refused again.
 */
export class DoomLoopGuard {
  readonly threshold: number
  readonly maxCycle: number
  readonly historySize: number
  readonly maxSessions: number
  /** Insertion order is recency: a session touched is moved to the end. */
  readonly #sessions = new Map<string, CallHistory>()
  /** The answers the sessions' records hold unkeyed (`RecordedCall`). */
  readonly #unkeyed: Unkeyed = { chars: 0 }

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

  /**
   * A call of the session is made: its place among the session's calls (`CallHistory`), which its
   * `check` and `record` then name. Calls running side by side are judged, and kept, in the order they
   * were made, whatever order they finish in. A place whose call is not recorded is given back (`end`).
   */
  begin(sessionID: string, callID?: string): number {
    return this.#touch(sessionID).begin(callID)
  }

  /** The call made with `ticket` leaves no answer (refused, interrupted). */
  end(sessionID: string, ticket: number): void {
    this.#sessions.get(sessionID)?.end(ticket)
  }

  /**
   * Remembers a call the session made and what it answered (or it as `recordOf` made it), in the place
   * `begin` gave it (without one: after every call made so far).
   */
  record(sessionID: string, call: Answered | Recorded, ticket?: number): void {
    const history = this.#touch(sessionID)
    const record = "answer" in call ? recordOf(call) : call
    if (record instanceof RecordedCall) record.wait(this.#unkeyed)
    history.record(record, ticket)
    // The call that just left what detection looks at: its key is taken now only if it may still be
    // compared (see `RecordedCall`).
    const leaving = history.records.length - 1 - window(this.threshold, this.maxCycle)
    if (leaving >= 0) settleKey(history.records, leaving, this.maxCycle)
    history.trim(this.historySize)
  }

  /** The session's history, made the most recently used (the least recently used is forgotten). */
  #touch(sessionID: string): CallHistory {
    const history = this.#sessions.get(sessionID) ?? new CallHistory()
    this.#sessions.delete(sessionID)
    this.#sessions.set(sessionID, history)
    if (this.#sessions.size > this.maxSessions) {
      const oldest = this.#sessions.keys().next().value
      if (oldest !== undefined) this.forget(oldest)
    }
    return history
  }

  /**
   * Whether `next` continues a loop in the session's recent calls. Before it runs (`next` a `Call`):
   * whether running it would, if it answers as before. After it ran (`next` `Answered`): whether it
   * did, its answer included; a poll never does. Does not record it.
   */
  check(
    sessionID: string,
    next: Call | Answered,
    ticket?: number,
    parentCallID?: string,
  ): DoomLoop | undefined {
    const history = this.#sessions.get(sessionID)?.before(ticket, parentCallID) ?? []
    return detect(history, pending(next), this.threshold, this.maxCycle)
  }

  /** `check` for a call that ran, given as `recordOf` made it (its digests taken once for `check` and `record`). */
  checkRecorded(
    sessionID: string,
    ran: Recorded,
    ticket?: number,
    parentCallID?: string,
  ): DoomLoop | undefined {
    const history = this.#sessions.get(sessionID)?.before(ticket, parentCallID) ?? []
    return detect(
      history,
      { tool: ran.tool, input: ran.input, ran: true, recorded: ran },
      this.threshold,
      this.maxCycle,
    )
  }

  /**
   * The session's recent calls, oldest first: each tool, its input (a long one as a digest) and a digest
   * of its answer (long inputs and outputs are not kept, so a session that reads or writes large files does not hold them here).
   */
  history(sessionID: string): Recorded[] {
    return (this.#sessions.get(sessionID)?.records ?? []).map(({ tool, input, key }) => ({
      tool,
      input,
      key,
    }))
  }

  /** Whether it holds calls of the session (it may have forgotten it to stay within `maxSessions`). */
  knows(sessionID: string): boolean {
    return this.#sessions.has(sessionID)
  }

  /** Forgets a session (it ended, or its loop was dealt with). */
  forget(sessionID: string): void {
    for (const record of this.#sessions.get(sessionID)?.records ?? []) {
      if (record instanceof RecordedCall) record.forget()
    }
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

/** For people and models: what is being repeated (no final period, so it fits in a sentence). */
export function describeDoomLoop(loop: DoomLoop): string {
  if (loop.kind === "repeat") {
    return `${loop.tool} was called ${loop.count} times in a row with the same input, and each earlier call got the same result`
  }
  return `The same ${loop.length} calls (${loop.tools.join(", ")}) were repeated ${loop.repeats} times in a row with the same results`
}

/** A call as the guard remembers it: its input (`inputIdentity`) and a digest of its answer (noise masked). */
export function recordOf(call: Answered): Recorded {
  return new RecordedCall(
    call.tool,
    inputIdentity(callKey(call)),
    call.poll === true ? undefined : call.answer,
  )
}

/** The next call; `recorded` when it ran already, whose key is taken only if compared. */
interface Next {
  readonly tool: string
  readonly input: string
  readonly ran: boolean
  readonly recorded: Recorded | undefined
}

function pending(call: Call | Answered): Next {
  if (!("answer" in call))
    return { tool: call.tool, input: inputIdentity(callKey(call)), ran: false, recorded: undefined }
  const recorded = recordOf(call)
  return { tool: call.tool, input: recorded.input, ran: true, recorded }
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

/** Keys that are the same call with the same answer (a poll's missing key equals nothing). */
function same(a: string | undefined, b: string | undefined): boolean {
  return a !== undefined && a === b
}

/**
 * Whether two records are the same call with the same answer. The inputs first: a key covers its input,
 * so records of other inputs never differ only in their keys, which are then not taken.
 */
function sameCall(a: Recorded, b: Recorded): boolean {
  return a.input === b.input && same(a.key, b.key)
}

/** Detection over the recorded calls and the next one (see `detectDoomLoop`). */
function detect(
  history: readonly Recorded[],
  next: Next,
  threshold: number,
  maxCycle: number,
): DoomLoop | undefined {
  const n = history.length
  // A call that ran continues a loop only if it answered as the call it would repeat did (the inputs
  // are the same wherever this is asked).
  const answersAs = (key: string | undefined) => !next.ran || same(next.recorded?.key, key)
  const previous = history[n - 1]
  if (previous && previous.input === next.input && previous.key !== undefined && answersAs(previous.key)) {
    let count = 1
    while (count < n && sameCall(history[n - 1 - count]!, previous)) count++
    if (count + 1 >= threshold) return { kind: "repeat", tool: next.tool, count: count + 1 }
  }

  for (let length = 2; length <= maxCycle; length++) {
    if (n + 1 < length * threshold) break
    const back = history[n - length]!
    if (back.input !== next.input || back.key === undefined || !answersAs(back.key)) continue
    // Index n is the next call, assumed to answer as it did one period back.
    const at = (index: number): Recorded => (index === n ? back : history[index]!)
    // One call repeated is a repeat, not a cycle (and was not enough of one above).
    let single = true
    for (let i = 1; i < length && single; i++) single = sameCall(at(n - i), back)
    if (single) continue
    // `run` counts the trailing calls that equal the call one period later.
    let run = length
    while (run <= n && sameCall(at(n - run), at(n - run + length))) run++
    const repeats = Math.floor(run / length)
    if (repeats < threshold) continue
    return {
      kind: "cycle",
      tools: [...history.slice(n - length + 1).map((call) => call.tool), next.tool],
      length,
      repeats,
    }
  }
  return undefined
}
