import { ZodError, type z } from "zod"
import { depthBeyond, MAX_INPUT_DEPTH } from "../../platform/store/input-bounds.ts"
import type { FilePart, ModelContent } from "../../platform/text/content.ts"
import { ascending } from "../../platform/util/id.ts"
import type { AfterOutput } from "../hooks/hooks.ts"
import { isPermissionError, stopsTheTurn } from "../permission/errors.ts"
import { isQuestionError } from "../question/errors.ts"
import type { Registry } from "../registry/registry.ts"
import type { AskInput, Context, MetadataUpdate } from "../tool/context.ts"
import { isToolFailure } from "../tool/failure.ts"
import {
  inputJsonSchema,
  internals,
  offerFor,
  type Projection,
  type ToolInternals,
} from "../tool/internal.ts"
import type { AnyTool } from "../tool/tool.ts"
import { bound } from "./bound.ts"
import { type Coercion, coerceInput, hasCoercible } from "./coerce.ts"
import { completedAnswer, errorAnswer } from "./doom-loop.ts"
import { inputRefusal } from "./input-refusal.ts"
import { LoopCheck } from "./loop-check.ts"
import * as Message from "./messages.ts"
import { type Failure, fromRecord, PartRecorder, startRides, trailsReply } from "./record.ts"
import type { CallRequest, ErrorKind, SettleDeps, Settlement } from "./types.ts"
import { unknownKeys } from "./unknown-keys.ts"

export type { CallRequest, ErrorKind, PartSink, PartStep, SettleDeps, Settlement } from "./types.ts"

class Interrupted {}

/**
 * Settles one tool call; the one pipeline for every surface. Each step below is marked with its
 * number in the code; what is recorded when is record.ts's, the loop guard's judgement loop-check.ts's.
 *
 * 1. Replay: a call that already finished (same session and call id) is answered from its record and
 *    never runs again.
 * 2. Record the call as requested, its input bounded for the journal.
 * 3. Refuse input nested deeper than `MAX_INPUT_DEPTH`, before anything walks it recursively (hooks,
 *    the loop guard's key, the schema).
 * 4. Resolve the registration advertised for the call's turn (unknown or stale: error, no run) and
 *    instantiate it for the agent (a throw: defect). The tool is captured here: registration changes
 *    from now on do not affect this call.
 * 5. Decide when the record must be on disk: a read-only call's start rides with its result (one
 *    commit; it has no side effect to record ahead of), and when its caller replies at once
 *    (`recordAfterReply`) its record trails the reply; any other call is on disk as running before
 *    its tool runs, and every call's result is on disk before it is returned.
 * 6. The `tool.execute.before` hooks may rewrite the arguments, deny, fail, or supply the result
 *    (then steps 7 to 11 and 13 are skipped: there is no run to judge).
 * 7. The loop guard, before: a call that changes things asks `doom_loop` when the session's recent
 *    calls show that running it again would answer the same again. From here on the guard remembers
 *    what the call answers (step 15).
 * 8. Decode the input with the tool's input codec, after replacing the strings that are exactly a
 *    number or a boolean where the schema wants one (`coerce.ts`; the result's `metadata.coerced` says
 *    which). Invalid, or holding a field the schema would drop unread: model-readable error naming
 *    each field, no run.
 * 9. Record the call as running, then execute it with the runner's context (abort: interruption,
 *    never a success; `ToolFailure`: shown to the model; a permission error: shown, and a person's
 *    "no" stops the turn, and so does a dismissed question; a NUL byte Node refuses in a path or
 *    command, or a path or program arguments the system refuses as too long: invalid input; any other
 *    throw: defect).
 * 10. Encode and validate the output with the output codec (invalid: never a success).
 * 11. Project the encoded output to model content; the tool says whether the answer is a poll.
 * 12. The `tool.execute.after` hooks see the whole text and may rewrite it.
 * 13. The loop guard, after: a read-only call asks `doom_loop` when it answered as the calls it
 *     repeats did (also when it failed the same way at steps 8 or 9); a poll never does.
 * 14. Bound the structured value (over the byte limit: the whole to the output store, a preview that
 *     fits the output schema in its place, `metadata.structuredOutput` says what was cut and where the
 *     whole is: `structured-bound.ts`), then the text (the full text goes to the output store). Storing
 *     fails: the call fails.
 * 15. Record the final part state; the guard remembers what the call answered.
 */
export async function settle(request: CallRequest, deps: SettleDeps): Promise<Settlement> {
  // 1. Replay.
  const recorded = deps.settled?.(request.sessionID, request.callID)
  if (recorded) return fromRecord(recorded)

  // 2. Record: requested.
  const recorder = new PartRecorder(request, deps.parts)
  await recorder.pending()
  const signal = request.abort ?? new AbortController().signal

  // 3. Refuse deep input.
  const depth = depthBeyond(request.input)
  if (depth !== undefined)
    return recorder.fail({
      error: Message.inputTooDeep(request.tool, depth, MAX_INPUT_DEPTH),
      kind: "invalid",
    })

  // 4. Resolve and capture.
  const resolved = resolve(request, deps.registry)
  if ("error" in resolved) return recorder.fail(resolved)
  const { entry, name } = resolved
  let tool: AnyTool
  try {
    tool = await deps.registry.instantiate(entry, request.agent)
  } catch (error) {
    return recorder.defect(error, name, deps.onDefect)
  }
  const own = internals(tool)

  // 5. Durability.
  if (startRides(own)) recorder.rideStart()
  if (trailsReply(request, own)) recorder.trail((error) => deps.onRecordError?.(error, recorder.part))

  // 6. Before hooks.
  const ids = { tool: name, sessionID: request.sessionID, callID: request.callID }
  let args = request.input
  let supplied: AfterOutput | undefined
  if (deps.hooks) {
    const outcome = await deps.hooks.runBefore({ ...ids, agent: request.agent }, args)
    args = outcome.args
    if (outcome.action === "deny") return recorder.fail({ error: outcome.message, kind: "permission" })
    if (outcome.action === "fail") return recorder.fail({ error: outcome.message, kind: "hook" })
    if (outcome.action === "result") supplied = outcome.result
  }

  // 7. Loop guard, before.
  const loop =
    deps.doomLoop && !supplied
      ? new LoopCheck({
          guard: deps.doomLoop,
          permission: deps.permission,
          request,
          tool: name,
          input: args,
          readOnly: own.annotations.readOnly === true,
          signal,
        })
      : undefined
  const refuse = (reason: string) =>
    recorder.fail({ error: reason, kind: "loop", metadata: { doomLoop: true }, blocked: true })
  if (loop) {
    // Before anything can end the call: a call that ends without an answer gives back its place.
    recorder.onSettled((state) => loop.remember(state))
    const stopped = await loop.before()
    if (stopped) return refuse(stopped)
  }
  /** A failure the tool's run produced; failing the same way again may be a loop (step 13). */
  const failed = async (failure: Failure) => {
    const stopped = await loop?.after(errorAnswer(failure.error))
    return stopped ? refuse(stopped) : recorder.fail(failure)
  }

  let projection: Projection
  let coerced: readonly Coercion[] = []
  if (supplied) projection = { content: [{ type: "text", text: supplied.output }], ...supplied }
  else {
    // 8. Decode.
    if (hasCoercible(args)) ({ value: args, coerced } = coerceInput(schemaOf(tool), args))
    const decoded = await own.input.safeParseAsync(args)
    const unknown = unknownKeys(own.input, args)
    if (!decoded.success || unknown.length) {
      const issues = [
        ...(decoded.success ? [] : Message.explainMissing(decoded.error.issues, args)),
        ...unknown.map(({ path, known }) => Message.unknownKeyIssue(path, known)),
      ]
      const error = Message.invalidArguments(name, new ZodError(issues), own.formatValidationError)
      return failed({ error, kind: "invalid" })
    }
    if (signal.aborted) return recorder.interrupted()

    // 9. Record: running; execute.
    await recorder.running()
    let value: unknown
    try {
      const ctx = contextFor({ request, tool: name, input: args, signal, recorder, deps })
      value = await execute({ tool: own, input: decoded.data, ctx, graceMs: deps.abortGraceMs })
    } catch (error) {
      if (error instanceof Interrupted || signal.aborted) return recorder.interrupted()
      if (isToolFailure(error))
        return failed({ error: error.message, kind: "failure", metadata: error.metadata })
      const refused = inputRefusal(error, name)
      if (refused) return recorder.fail({ error: refused, kind: "invalid" })
      // A dismissed question, or no one to answer it: the turn stops, as after a person's "no".
      if (isQuestionError(error))
        return recorder.fail({ error: error.message, kind: "question", blocked: true })
      if (isPermissionError(error)) {
        // A person's "no", no one to ask, the loop guard: the turn stops instead of trying something else.
        return recorder.fail({ error: error.message, kind: "permission", blocked: stopsTheTurn(error) })
      }
      return recorder.defect(error, name, deps.onDefect)
    }
    if (signal.aborted) return recorder.interrupted()

    // 10. Encode.
    // A value that plainly is what the codec would give needs no codec run (`encodePlain`).
    let encoded: unknown = own.encodePlain?.(value)
    if (encoded === undefined) {
      const result = own.output ? await own.output.safeEncodeAsync(value as never) : undefined
      if (result && !result.success)
        return recorder.fail({
          error: Message.invalidOutput(name, result.error as z.ZodError),
          kind: "output",
        })
      encoded = result ? result.data : value
    }

    // 11. Project.
    try {
      projection = own.project(decoded.data, encoded)
      loop?.poll(own.pollable?.(decoded.data, encoded) === true)
    } catch (error) {
      return recorder.defect(error, name, deps.onDefect)
    }
  }
  let { text, attachments } = flatten(projection)
  let metadata: Record<string, unknown> = { ...(projection.metadata ?? {}) }
  if (coerced.length) metadata.coerced = coerced
  let title = projection.title ?? recorder.title ?? name

  // 12. After hooks.
  if (deps.hooks) {
    const after = await deps.hooks.runAfter({ ...ids, args }, { title, output: text, metadata, attachments })
    ;({ title, output: text, metadata, attachments } = after)
  }
  // Attachments carry ids, as the spec's do: their own, and the call's session and message.
  attachments = attachments.map((file) => ({
    ...file,
    id: file.id ?? ascending("prt"),
    sessionID: file.sessionID ?? request.sessionID,
    messageID: file.messageID ?? request.messageID,
  }))

  // 13. Loop guard, after. It compares the whole text: a cut one names a new output file every time.
  loop?.answered(text)
  const stopped = await loop?.after(
    completedAnswer(text, attachments),
    attachments.map((file) => file.url),
  )
  if (stopped) return refuse(stopped)

  // 14. Bound.
  let output: string
  let structured: unknown
  try {
    ;({ output, structured } = await bound({
      text,
      structured: projection.structured,
      selfBounded: projection.selfBounded === true,
      metadata,
      tool: own,
      request,
      deps,
    }))
  } catch (error) {
    return recorder.fail({ error: Message.unstorableOutput(name, errorText(error)), kind: "output" })
  }

  // 15. Record: final.
  return recorder.complete({ output, title, metadata, attachments, structured })
}

/** The input JSON Schema the model was shown; none (no coercion) when it cannot be written. */
function schemaOf(tool: AnyTool): unknown {
  try {
    return inputJsonSchema(tool)
  } catch {
    return undefined
  }
}

type Resolved = { entry: NonNullable<ReturnType<Registry["resolve"]>>; name: string }

function resolve(request: CallRequest, registry: Registry): Resolved | (Failure & { kind: ErrorKind }) {
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
      return offerFor(own.available, {}).offered
    } catch {
      return true
    }
  })
}

/** Runs the tool; an abort gives it `graceMs` (default 250) to wind down, then throws `Interrupted`. */
async function execute({
  tool,
  input,
  ctx,
  graceMs = 250,
}: {
  tool: ToolInternals
  input: unknown
  ctx: Context
  graceMs?: number | undefined
}): Promise<unknown> {
  const signal = ctx.abort
  const running = Promise.resolve().then(() => tool.execute(input, ctx))
  if (signal.aborted) throw new Interrupted()
  let onAbort: (() => void) | undefined
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => {
      // Give the tool a moment to wind down (kill processes, remove temp files) before recording.
      const grace = setTimeout(() => reject(new Interrupted()), graceMs)
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

/** What the tool sees of its call: the runner's ids, the abort signal, progress and permission. */
function contextFor({
  request,
  tool,
  input: args,
  signal,
  recorder,
  deps,
}: {
  request: CallRequest
  tool: string
  input: unknown
  signal: AbortSignal
  recorder: PartRecorder
  deps: SettleDeps
}): Context {
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
          tool: { messageID: request.messageID, callID: request.callID, name: tool },
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

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
