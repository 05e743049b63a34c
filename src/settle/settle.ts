import type { z } from "zod"
import type { AfterOutput, Hooks } from "../hooks/hooks.ts"
import type { Pager } from "../output/hint.ts"
import type { Direction, Limits } from "../output/limits.ts"
import type { OutputStore } from "../output/store.ts"
import { truncate } from "../output/truncate.ts"
import {
  isPermissionError,
  PermissionRejectedError,
  PermissionUnansweredError,
} from "../permission/errors.ts"
import type { PermissionService } from "../permission/service.ts"
import type { Registry, Turn } from "../registry/registry.ts"
import {
  answerOf,
  completedAnswer,
  type DoomLoop,
  type DoomLoopGuard,
  doomLoopAsk,
  errorAnswer,
} from "../session/doom-loop.ts"
import { depthBeyond, MAX_INPUT_DEPTH, storedInput, storedString } from "../session/input-bounds.ts"
import { advance, asInput, type ToolPart, type ToolState } from "../session/part.ts"
import type { FilePart, ModelContent } from "../tool/content.ts"
import type { AskInput, Context, ConversationMessage, MetadataUpdate } from "../tool/context.ts"
import { isToolFailure } from "../tool/failure.ts"
import { internals, type Projection, type ToolInternals } from "../tool/internal.ts"
import type { AnyTool } from "../tool/tool.ts"
import { ascending } from "../util/id.ts"
import * as Message from "./messages.ts"

/** One call, as the runner hands it over. The ids are the runner's; settlement never invents them. */
export interface CallRequest {
  /** The name the model used. */
  readonly tool: string
  /** The arguments as the model sent them (not yet decoded). */
  readonly input: unknown
  readonly sessionID: string
  readonly messageID: string
  readonly agent: string
  readonly callID: string
  readonly abort?: AbortSignal
  readonly extra?: Readonly<Record<string, unknown>>
  readonly messages?: readonly ConversationMessage[]
  /** The registrations advertised for this call's provider turn; omitted for direct calls. */
  readonly turn?: Turn
  /** Per-call bounding override. */
  readonly bounding?: Partial<Limits> & { readonly direction?: Direction }
  /** An existing part id to continue (the stream processor created it as pending). */
  readonly partID?: string
  /**
   * The caller sends the result on as soon as it has it (a server answering a client), so a read-only
   * call need not wait for its record: the part's states commit together just after, in the same turn
   * of the event loop. Other calls always record their result before it is returned. Default false:
   * when `settle` resolves, the call's record (and what it stamped, such as a read) is durable.
   */
  readonly recordAfterReply?: boolean
}

/**
 * Receives every state of the call's tool part, in order; the promise says when the state is recorded.
 * A sink marked `ordered` keeps the order of what it is handed by itself (a queue), so it is handed
 * each state at once; any other sink gets a state only after its previous one resolved.
 */
export type PartSink = ((part: ToolPart) => void | Promise<void>) & { readonly ordered?: boolean }

export interface SettleDeps {
  readonly registry: Registry
  readonly permission: PermissionService
  readonly store: OutputStore
  readonly limits: Limits
  readonly parts?: PartSink
  /** Whether the agent may delegate reading a large output (decides the truncation hint). */
  readonly canDelegate?: (agent: string) => boolean
  /** The tool an agent reads files page by page with, if any: the truncation hint names calls to it. */
  readonly pager?: (agent: string) => Pager | undefined
  /** How long an aborted call may take to wind down before it is recorded as interrupted. */
  readonly abortGraceMs?: number
  /** Told about defects (with their stack) for logs. */
  readonly onDefect?: (error: unknown, part: ToolPart) => void
  /** Told when a record nobody waited for (`recordAfterReply`) could not be written, for logs. */
  readonly onRecordError?: (error: unknown, part: ToolPart) => void
  /** Plugin hooks: `tool.execute.before` (rewrite, deny, short-circuit) and `tool.execute.after`. */
  readonly hooks?: Hooks
  /** Detects repeated calls and short cycles across the session; a loop asks `doom_loop`. */
  readonly doomLoop?: DoomLoopGuard
  /**
   * The recorded final part of a call that already finished (the journal's idempotency key is the
   * session and call id): such a call is answered from the record and never executed again.
   */
  readonly settled?: (sessionID: string, callID: string) => ToolPart | undefined
}

export type ErrorKind =
  | "unknown"
  | "hook"
  | "loop"
  | "stale"
  | "invalid"
  | "failure"
  | "permission"
  | "interrupted"
  | "defect"
  | "output"

export type Settlement =
  | {
      readonly status: "completed"
      readonly title: string
      readonly output: string
      readonly metadata: Record<string, unknown>
      readonly attachments: readonly FilePart[]
      /** The encoded structured output, when the tool returned one and it was not cut. */
      readonly structured?: unknown
      readonly part: ToolPart
    }
  | {
      readonly status: "error"
      readonly error: string
      readonly kind: ErrorKind
      /** A rejected permission stops the turn (the loop should not continue). */
      readonly blocked: boolean
      readonly metadata: Record<string, unknown>
      readonly part: ToolPart
    }

class Interrupted {}

/**
 * Settles one tool call; the one pipeline for every surface.
 *
 * 0. Record the call as requested, its input bounded for the journal (`storedInput`); input nested
 *    deeper than `MAX_INPUT_DEPTH` is refused here, before anything walks it recursively.
 * 1. Resolve the registration advertised for the call's turn (unknown or stale: error, no run).
 *    Then the `tool.execute.before` hooks may rewrite the arguments, deny, or supply the result,
 *    and the doom-loop guard asks `doom_loop` when the session's recent calls show that running it
 *    again would answer the same again (same calls, same answers, nothing changed). A read-only call
 *    is judged after it ran instead (steps 2, 3 and 6), on its own answer, so that a changed target
 *    is never a loop; running it costs nothing that a refusal would have saved.
 * 2. Decode the input with the tool's input codec (invalid: model-readable error, no run).
 * 3. Execute with the runner's context, once its start is recorded (abort: interruption, never a
 *    success; a NUL byte Node refuses in a path or command: invalid input, not a defect).
 * 4. Encode and validate the output with the output codec (invalid: never a success).
 * 5. Project the encoded output to model content; the `tool.execute.after` hooks see it whole.
 * 6. Bound the text (the full text goes to the output store; storing fails: the call fails).
 * 7. Record the final part state; the guard remembers what the call answered (not a refusal or an
 *    interruption) and whether the tool called the answer a poll.
 */
export async function settle(request: CallRequest, deps: SettleDeps): Promise<Settlement> {
  const recorded = deps.settled?.(request.sessionID, request.callID)
  if (recorded) return fromRecord(recorded)
  const recorder = new PartRecorder(request, deps.parts)
  await recorder.pending()
  const signal = request.abort ?? new AbortController().signal
  // Before anything walks the input recursively (hooks, the doom-loop key, the schema).
  const depth = depthBeyond(request.input)
  if (depth !== undefined)
    return recorder.fail(Message.inputTooDeep(request.tool, depth, MAX_INPUT_DEPTH), "invalid")

  // 1. Resolve.
  const resolved = resolve(request, deps.registry)
  if ("error" in resolved) return recorder.fail(resolved.error, resolved.kind)
  const { entry, name } = resolved

  let tool: AnyTool
  try {
    tool = await deps.registry.instantiate(entry, request.agent)
  } catch (error) {
    return recorder.defect(error, name, deps.onDefect)
  }
  // Captured now: registration changes from here on do not affect this call.
  const own = internals(tool)
  // Running a read-only call again is harmless, so its record need not be durable before it runs or
  // before its result is returned: it trails the reply by a commit (see PartRecorder.trail).
  if (request.recordAfterReply === true && own.annotations.readOnly === true)
    recorder.trail((error) => deps.onRecordError?.(error, recorder.part))
  const ids = { tool: name, sessionID: request.sessionID, callID: request.callID }

  let args = request.input
  let supplied: AfterOutput | undefined
  if (deps.hooks) {
    const outcome = await deps.hooks.runBefore({ ...ids, agent: request.agent }, args)
    args = outcome.args
    if (outcome.action === "deny") return recorder.fail(outcome.message, "permission")
    if (outcome.action === "fail") return recorder.fail(outcome.message, "hook")
    if (outcome.action === "result") supplied = outcome.result
  }

  // What the call answered and whether the tool called it a poll: the guard records them once it settled.
  let answer: { text?: string; poll: boolean } = { poll: false }
  const guard = supplied ? undefined : deps.doomLoop
  const loopCall = { tool: name, input: args }
  // A read-only call is harmless to run, so it runs first and is a loop only if it answered as before:
  // a file changed since the last read is never refused. Any other call is judged before it runs.
  const judgeAfter = guard !== undefined && own.annotations.readOnly === true
  /** The refusal of a read-only call that answered `text` as the calls it repeats did, if refused. */
  const refusedAfter = async (text: string): Promise<string | undefined> => {
    if (!guard || !judgeAfter || answer.poll) return undefined
    const loop = guard.check(request.sessionID, { ...loopCall, answer: text })
    return loop ? askLoop(loop, guard, deps.permission, request, name, args, signal) : undefined
  }
  /** `recorder.fail`, unless failing the same way again is a loop the rules refuse. */
  const failed = async (error: string, kind: ErrorKind, metadata?: Record<string, unknown>) => {
    const stopped = await refusedAfter(errorAnswer(error))
    if (stopped) return recorder.fail(stopped, "loop", { doomLoop: true }, true)
    return recorder.fail(error, kind, metadata)
  }
  if (guard) {
    const loop = judgeAfter ? undefined : guard.check(request.sessionID, loopCall)
    const stopped = loop && (await askLoop(loop, guard, deps.permission, request, name, args, signal))
    if (stopped) return recorder.fail(stopped, "loop", { doomLoop: true }, true)
    recorder.onSettled((state) => {
      const whole = answer.text !== undefined && state.status === "completed"
      const text = answerOf(whole ? { ...state, output: answer.text! } : state)
      if (text === undefined) return // interrupted: no answer
      guard.record(request.sessionID, { tool: name, input: args, answer: text, poll: answer.poll })
    })
  }

  let projection: Projection
  if (supplied) {
    projection = { content: [{ type: "text", text: supplied.output }], ...supplied }
  } else {
    // 2. Decode.
    const decoded = await own.input.safeParseAsync(args)
    if (!decoded.success) {
      return failed(Message.invalidArguments(name, decoded.error, own.formatValidationError), "invalid")
    }
    if (signal.aborted) return recorder.interrupted()

    // 3. Execute.
    await recorder.running()
    let value: unknown
    try {
      const ctx = contextFor(request, args, signal, recorder, deps, name)
      value = await execute(own, decoded.data, ctx, signal, deps)
    } catch (error) {
      if (error instanceof Interrupted || signal.aborted) return recorder.interrupted()
      if (isToolFailure(error)) return failed(error.message, "failure", error.metadata)
      const nul = nulByteOf(error)
      if (nul) return recorder.fail(Message.nulByte(name, nul.value), "invalid")
      if (isPermissionError(error)) {
        // A person's "no", or no one to ask: either way the turn stops instead of trying something else.
        const stops = error instanceof PermissionRejectedError || error instanceof PermissionUnansweredError
        return recorder.fail(error.message, "permission", undefined, stops)
      }
      return recorder.defect(error, name, deps.onDefect)
    }
    if (signal.aborted) return recorder.interrupted()

    // 4. Encode.
    let encoded: unknown = value
    if (own.output) {
      const result = await own.output.safeEncodeAsync(value as never)
      if (!result.success)
        return recorder.fail(Message.invalidOutput(name, result.error as z.ZodError), "output")
      encoded = result.data
    }

    // 5. Project.
    try {
      projection = own.project(decoded.data, encoded)
      answer.poll = own.pollable?.(decoded.data, encoded) === true
    } catch (error) {
      return recorder.defect(error, name, deps.onDefect)
    }
  }
  let { text, attachments } = flatten(projection)
  let metadata: Record<string, unknown> = { ...(projection.metadata ?? {}) }
  let title = projection.title ?? recorder.title ?? name
  if (deps.hooks) {
    const after = await deps.hooks.runAfter({ ...ids, args }, { title, output: text, metadata, attachments })
    ;({ title, output: text, metadata, attachments } = after)
  }

  // 6. Bound. The guard compares the whole text: a cut one names a new output file every time.
  answer = { ...answer, text }
  const stopped = await refusedAfter(completedAnswer(text, attachments))
  if (stopped) return recorder.fail(stopped, "loop", { doomLoop: true }, true)
  let output = text
  let structured = projection.structured
  if (!projection.selfBounded) {
    let bounded: Awaited<ReturnType<typeof truncate>>
    try {
      bounded = await truncate(text, {
        limits: { ...deps.limits, ...withoutDirection(request.bounding) },
        direction: request.bounding?.direction ?? "head",
        store: deps.store,
        canDelegate: deps.canDelegate?.(request.agent) ?? false,
        pager: () => deps.pager?.(request.agent),
      })
    } catch (error) {
      return recorder.fail(Message.unstorableOutput(name, errorText(error)), "output")
    }
    output = bounded.content
    metadata.truncated = bounded.truncated
    if (bounded.truncated) {
      metadata.outputPath = bounded.outputPath
      structured = undefined
    }
  }

  // 7. Record.
  return recorder.complete({ output, title, metadata, attachments, structured })
}

/** The settlement a finished call already had, from its recorded part. */
function fromRecord(part: ToolPart): Settlement {
  const { state } = part
  if (state.status === "completed") {
    return {
      status: "completed",
      title: state.title,
      output: state.output,
      metadata: state.metadata,
      attachments: state.attachments ?? [],
      part,
    }
  }
  if (state.status === "error") {
    return {
      status: "error",
      error: state.error,
      kind: "failure",
      blocked: false,
      metadata: state.metadata ?? {},
      part,
    }
  }
  throw new Error(
    `settled() returned call ${part.callID} in state ${state.status}; only finished calls are records`,
  )
}

function withoutDirection(bounding: CallRequest["bounding"]): Partial<Limits> {
  if (!bounding) return {}
  const out: { maxLines?: number; maxBytes?: number } = {}
  if (bounding.maxLines !== undefined) out.maxLines = bounding.maxLines
  if (bounding.maxBytes !== undefined) out.maxBytes = bounding.maxBytes
  return out
}

type Resolved = { entry: NonNullable<ReturnType<Registry["resolve"]>>; name: string }

function resolve(request: CallRequest, registry: Registry): Resolved | { error: string; kind: ErrorKind } {
  const { turn } = request
  const names = turn ? [...turn.keys()] : registry.ids()
  const name = names.includes(request.tool) ? request.tool : registry.repairName(request.tool, names)
  if (!name)
    return { error: Message.unknownTool(request.tool, advertisedNames(names, registry)), kind: "unknown" }
  const entry = registry.resolve(name)
  if (turn) {
    if (!entry || entry.identity !== turn.get(name)) return { error: Message.staleTool(name), kind: "stale" }
  }
  if (!entry)
    return { error: Message.unknownTool(request.tool, advertisedNames(names, registry)), kind: "unknown" }
  return { entry, name }
}

function advertisedNames(names: readonly string[], registry: Registry): string[] {
  // Tools that declare themselves never offered (like `invalid`) are not suggested either.
  return names.filter((name) => {
    const entry = registry.resolve(name)
    if (!entry) return false
    try {
      const own = internals(entry.value)
      return !own.available || own.available({})
    } catch {
      return true
    }
  })
}

async function execute(
  own: ToolInternals,
  input: unknown,
  ctx: Context,
  signal: AbortSignal,
  deps: SettleDeps,
): Promise<unknown> {
  const running = Promise.resolve().then(() => own.execute(input, ctx))
  if (signal.aborted) throw new Interrupted()
  let onAbort: (() => void) | undefined
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => {
      // Give the tool a moment to wind down (kill processes, remove temp files) before recording.
      const grace = setTimeout(() => reject(new Interrupted()), deps.abortGraceMs ?? 250)
      running.then(
        () => {
          clearTimeout(grace)
          reject(new Interrupted())
        },
        () => {
          clearTimeout(grace)
          reject(new Interrupted())
        },
      )
    }
    signal.addEventListener("abort", onAbort, { once: true })
  })
  try {
    return await Promise.race([running, aborted])
  } finally {
    if (onAbort) signal.removeEventListener("abort", onAbort)
    aborted.catch(() => {})
  }
}

/**
 * Asks `doom_loop` about a loop the guard found. Returns the model-visible reason when the loop must
 * stop the turn: what repeated, the rule that decided and how to change it (see `Message.loopRefused`).
 */
async function askLoop(
  loop: DoomLoop,
  guard: DoomLoopGuard,
  permission: PermissionService,
  request: CallRequest,
  name: string,
  args: unknown,
  signal: AbortSignal,
): Promise<string | undefined> {
  const call = { tool: name, input: args }
  const ask = doomLoopAsk(loop, call)
  try {
    await permission.ask(
      {
        sessionID: request.sessionID,
        agent: request.agent,
        permission: ask.permission,
        patterns: [...ask.patterns],
        always: [...(ask.always ?? ask.patterns)],
        metadata: ask.metadata ?? {},
        tool: { messageID: request.messageID, callID: request.callID, name },
        input: args,
      },
      { signal },
    )
    return undefined
  } catch (error) {
    if (!isPermissionError(error)) throw error
    return Message.loopRefused({ loop, call, threshold: guard.threshold, error })
  }
}

function contextFor(
  request: CallRequest,
  args: unknown,
  signal: AbortSignal,
  recorder: PartRecorder,
  deps: SettleDeps,
  name: string,
): Context {
  return {
    sessionID: request.sessionID,
    messageID: request.messageID,
    agent: request.agent,
    callID: request.callID,
    abort: signal,
    extra: request.extra ?? {},
    messages: request.messages ?? [],
    metadata: (update: MetadataUpdate) => recorder.progress(update),
    ask: (input: AskInput) =>
      deps.permission.ask(
        {
          sessionID: request.sessionID,
          agent: request.agent,
          permission: input.permission,
          patterns: [...input.patterns],
          always: [...(input.always ?? input.patterns)],
          metadata: input.metadata ?? {},
          tool: { messageID: request.messageID, callID: request.callID, name },
          input: args,
        },
        { signal },
      ),
  }
}

function flatten(projection: Projection): { text: string; attachments: FilePart[] } {
  const texts: string[] = []
  const media: FilePart[] = []
  for (const item of projection.content as readonly ModelContent[]) {
    if (item.type === "text") texts.push(item.text)
    else media.push({ type: "file", mime: item.mime, url: `data:${item.mime};base64,${item.data}` })
  }
  return {
    text: texts.join("\n\n"),
    attachments: projection.attachments ? [...projection.attachments] : media,
  }
}

/**
 * Node's refusal of a path or a spawn argument holding a NUL byte (every fs and child_process call
 * checks this before it touches the system): the input's fault, not the tool's, so it goes back to the
 * model as invalid input rather than being logged as a defect.
 */
function nulByteOf(error: unknown): { value: string | undefined } | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown }
  if (code !== "ERR_INVALID_ARG_VALUE" && code !== "ERR_INVALID_ARG_TYPE") return undefined
  if (typeof message !== "string" || !message.includes("without null bytes")) return undefined
  const received = /Received '([\s\S]*)'$/.exec(message)?.[1]
  return { value: received?.replace(/\\x00/g, "\u0000") }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** Moves the call's part forward and hands every state to the sink. */
class PartRecorder {
  #part: ToolPart
  #start = 0
  #progress: MetadataUpdate = {}
  readonly #sink: PartSink | undefined
  #writes: Promise<void> = Promise.resolve()
  /** Set by `trail()`: where a recording failure goes once nobody awaits it. */
  #trailing: ((error: unknown) => void) | undefined
  /** Told the final state as soon as the call settled (the loop guard's record). */
  #settled: ((state: ToolState) => void) | undefined

  constructor(request: CallRequest, sink: PartSink | undefined) {
    this.#sink = sink
    // The part carries the input as the journal keeps it (bounded); the tool gets the whole input.
    const whole = asInput(request.input)
    const input = storedInput(whole)
    const raw =
      typeof request.input === "string"
        ? storedString(request.input)
        : safeJson(input === whole ? request.input : input)
    this.#part = {
      id: request.partID ?? ascending("prt"),
      sessionID: request.sessionID,
      messageID: request.messageID,
      type: "tool",
      callID: request.callID,
      tool: request.tool,
      state: { status: "pending", input, raw },
    }
  }

  get title(): string | undefined {
    return this.#progress.title
  }

  get part(): ToolPart {
    return this.#part
  }

  /**
   * From now on the call waits for no recording: `running()` and the final state are handed to the
   * sink and the call goes on (an `ordered` sink, such as the journal, then commits them together,
   * after the result is out). A recording that fails goes to `report` (the call's result stands).
   * For read-only tools only. The states are still queued the moment they happen, and the group
   * commit flushes at the next turn of the event loop, so a call that is still running after one turn
   * (any read that waits on I/O) is on disk as running, and a kill -9 from then on leaves a record that
   * the next start closes as interrupted. Only a kill within that first turn can leave no record, and
   * then what ran was a read: a client retrying it never repeats a side effect.
   */
  trail(report: (error: unknown) => void): void {
    this.#trailing = report
  }

  /** Calls `listener` with the final state, the moment the call settles. */
  onSettled(listener: (state: ToolState) => void): void {
    this.#settled = listener
  }

  pending(): Promise<void> {
    return this.#emit()
  }

  running(): Promise<void> {
    this.#start = Date.now()
    const written = this.#move({
      status: "running",
      input: this.#part.state.input,
      time: { start: this.#start },
    })
    if (!this.#trailing) return written
    // Its failure, if any, reaches the final state's write (they are chained) and is reported there.
    written.catch(() => {})
    return Promise.resolve()
  }

  /** Live progress; keeps `time.start` (opencode resets it on every update). */
  progress(update: MetadataUpdate): void {
    if (this.#part.state.status !== "running") return
    this.#progress = {
      ...(update.title !== undefined || this.#progress.title !== undefined
        ? { title: update.title ?? this.#progress.title }
        : {}),
      ...(update.metadata !== undefined || this.#progress.metadata !== undefined
        ? { metadata: update.metadata ?? this.#progress.metadata }
        : {}),
    }
    void this.#move({
      status: "running",
      input: this.#part.state.input,
      ...this.#progress,
      time: { start: this.#start },
    }).catch(() => {})
  }

  async fail(
    error: string,
    kind: ErrorKind,
    metadata?: Record<string, unknown>,
    blocked = false,
  ): Promise<Settlement> {
    const full = { ...(this.#progress.metadata ?? {}), ...(metadata ?? {}) }
    await this.#finish({
      status: "error",
      input: this.#part.state.input,
      error,
      metadata: full,
      time: this.#times(),
    })
    return { status: "error", error, kind, blocked, metadata: full, part: this.#part }
  }

  interrupted(): Promise<Settlement> {
    return this.fail(Message.INTERRUPTED, "interrupted", { interrupted: true })
  }

  defect(error: unknown, tool: string, onDefect: SettleDeps["onDefect"]): Promise<Settlement> {
    const stack = error instanceof Error ? (error.stack ?? error.message) : String(error)
    const settled = this.fail(Message.defectMessage(tool, error), "defect", { defect: true, stack })
    void settled.then((result) => onDefect?.(error, result.part))
    return settled
  }

  async complete(result: {
    output: string
    title: string
    metadata: Record<string, unknown>
    attachments: FilePart[]
    structured: unknown
  }): Promise<Settlement> {
    await this.#finish({
      status: "completed",
      input: this.#part.state.input,
      output: result.output,
      title: result.title,
      metadata: result.metadata,
      time: this.#times(),
      ...(result.attachments.length ? { attachments: result.attachments } : {}),
    })
    return {
      status: "completed",
      title: result.title,
      output: result.output,
      metadata: result.metadata,
      attachments: result.attachments,
      ...(result.structured !== undefined ? { structured: result.structured } : {}),
      part: this.#part,
    }
  }

  #times(): { start: number; end: number } {
    const end = Date.now()
    return { start: this.#start || end, end }
  }

  async #finish(state: ToolState): Promise<void> {
    this.#settled?.(state)
    const moved = this.#move(state)
    const written = moved.then(() => this.#writes)
    const report = this.#trailing
    if (report) written.catch(report)
    else await written
  }

  #move(state: ToolState): Promise<void> {
    this.#part = advance(this.#part, state)
    return this.#emit()
  }

  #emit(): Promise<void> {
    if (!this.#sink) return Promise.resolve()
    const part = this.#part
    const sink = this.#sink
    if (sink.ordered) {
      // The sink queues in order itself; chaining only keeps every earlier state's failure in view.
      let written: Promise<void>
      try {
        written = Promise.resolve(sink(part))
      } catch (error) {
        written = Promise.reject(error)
      }
      this.#writes = Promise.all([this.#writes, written]).then(() => {})
      return this.#writes
    }
    // Serialised so the sink sees states in order even when it is async.
    this.#writes = this.#writes.then(() => sink(part))
    return this.#writes
  }
}

function safeJson(value: unknown): string {
  try {
    return typeof value === "string" ? value : (JSON.stringify(value) ?? "")
  } catch {
    return String(value)
  }
}
