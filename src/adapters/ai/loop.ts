import { isStepCount, type ModelMessage, streamText, type TextStreamPart, type ToolSet } from "ai"
import type { ToolPart } from "../../platform/store/part.ts"
import { ascending } from "../../platform/util/id.ts"
import { DEFAULT_AGENT } from "../../runtime/permission/agents/agent.ts"
import type { ToolHost } from "./host.ts"
import { acceptsToolMedia } from "./model-output.ts"
import { StreamProcessor } from "./processor.ts"
import { replaySession, type StoredMessage } from "./replay.ts"
import type { ProcessedStep } from "./step-log.ts"
import { type ModelObject, toAISDKTools } from "./tools.ts"

/** Steps (model calls) one turn may take unless told otherwise. */
export const DEFAULT_STEPS = 50

/** Added before the last allowed step, which gets no tools: the model must answer in text. */
export const MAX_STEPS_PROMPT =
  "You have reached the maximum number of steps for this turn, so tools are no longer available. Do not call any tool. Reply with what you did, what is left to do, and what the user should do next."

export interface RunTurnOptions {
  readonly toolbelt: ToolHost
  /** The model and the ids its tools are prepared for (see `resolveModel`). */
  readonly model: { readonly model: ModelObject; readonly providerID: string; readonly modelID: string }
  readonly prompt: string
  /** Continue this session (its stored messages and parts are replayed); default: a new session. */
  readonly sessionID?: string
  readonly agent?: string
  /** The most model calls of the turn (default 50); the last one answers without tools. */
  readonly steps?: number
  readonly abort?: AbortSignal
  /** The system instructions (default: a short coding-agent brief naming the project directory). */
  readonly instructions?: string
  /** OpenAI strict mode for the tool schemas that allow it. */
  readonly strict?: boolean
  /** Every stream part as it arrives (after the processor handled it), for live display. */
  readonly onPart?: (part: TextStreamPart<ToolSet>) => void
  /** Called once the session and message ids are known, before the model is called. */
  readonly onStart?: (ids: { sessionID: string; messageID: string }) => void
}

/**
 * How the turn ended:
 * - `finished`: the model stopped calling tools (or answered at the step limit);
 * - `blocked`: a call was blocked (a rejected permission, a denied doom loop) and the turn stopped;
 * - `failed`: the model or provider failed;
 * - `aborted`: the abort signal fired.
 */
export type TurnStatus = "finished" | "blocked" | "failed" | "aborted"

export interface TurnResult {
  readonly status: TurnStatus
  /** The model's last text (its answer when the turn finished). */
  readonly text: string
  /** Why the turn did not finish. */
  readonly error?: string
  readonly sessionID: string
  readonly messageID: string
  readonly steps: readonly ProcessedStep[]
  /** Whether the turn used every step it was allowed. */
  readonly stepLimit: boolean
  readonly parts: readonly ToolPart[]
}

/**
 * One agent turn: the prompt, the model and the toolbelt's tools, until the model stops calling tools.
 *
 * 1. The session: a new one, or the given one with its history replayed from the store (every call
 *    has a result, interrupted ones included). The user message is stored.
 * 2. The tool set for this assistant message (`toAISDKTools`), a stream processor on the same calls.
 * 3. `streamText` with the repair function, the step limit (the last step without tools) and a stop
 *    after any blocked call; the processor records every tool part as the stream goes.
 * 4. The assistant message (its steps: text and calls) is stored; the status says how it ended.
 */
export async function runTurn(options: RunTurnOptions): Promise<TurnResult> {
  const { toolbelt } = options
  const agent = options.agent ?? DEFAULT_AGENT
  const steps = Math.max(1, options.steps ?? DEFAULT_STEPS)
  const media = acceptsToolMedia(options.model.providerID)

  // 1. Session and history.
  const store = toolbelt.store
  let sessionID = options.sessionID
  let history: ModelMessage[] = []
  if (sessionID && store.sessions.get(sessionID)) {
    history = replaySession(store.messages.list(sessionID), store.parts.list(sessionID), { media })
  } else {
    sessionID = store.sessions.create({
      ...(sessionID ? { id: sessionID } : {}),
      projectID: toolbelt.directory,
      agent,
      title: options.prompt.slice(0, 100),
    }).id
  }
  store.messages.put({
    sessionID,
    role: "user",
    data: { role: "user", text: options.prompt } satisfies StoredMessage,
  })
  const messageID = ascending("msg")
  options.onStart?.({ sessionID, messageID })

  // 2. Tools and processor.
  const ai = await toAISDKTools({
    toolbelt,
    sessionID,
    messageID,
    agent,
    model: options.model,
    client: "cli",
    ...(options.abort ? { abort: options.abort } : {}),
    ...(options.strict ? { strict: true } : {}),
  })
  const processor = new StreamProcessor({ toolbelt, tools: ai })

  // 3. The loop.
  const result = streamText({
    model: ai.wrap(options.model.model),
    tools: ai.tools,
    repairToolCall: ai.repairToolCall,
    instructions: options.instructions ?? defaultInstructions(toolbelt.directory),
    messages: [...history, { role: "user", content: options.prompt }],
    stopWhen: [isStepCount(steps), ai.stopWhen],
    prepareStep: ({ stepNumber, messages }) =>
      steps > 1 && stepNumber === steps - 1
        ? { activeTools: [], messages: [...messages, { role: "user", content: MAX_STEPS_PROMPT }] }
        : undefined,
    ...(options.abort ? { abortSignal: options.abort } : {}),
    onError: () => {},
  })
  const processed = await processor.consume(result.stream, options.onPart)

  // 4. Store the assistant message and report.
  store.messages.put({
    id: messageID,
    sessionID,
    role: "assistant",
    data: {
      role: "assistant",
      steps: processed.steps.map((step) => ({ text: step.text, calls: step.calls })),
    } satisfies StoredMessage,
  })
  store.sessions.touch(sessionID)
  const base = {
    text: processed.text,
    sessionID,
    messageID,
    steps: processed.steps,
    stepLimit: processed.steps.length >= steps,
    parts: processed.parts,
  }
  if (processed.aborted || options.abort?.aborted)
    return { ...base, status: "aborted", error: "The turn was aborted." }
  if (processed.error !== undefined)
    return { ...base, status: "failed", error: describeError(processed.error) }
  if (ai.calls.blocked !== undefined) return { ...base, status: "blocked", error: ai.calls.blocked }
  return { ...base, status: "finished" }
}

export function defaultInstructions(directory: string): string {
  return [
    `You are a coding agent working in the project at ${directory}.`,
    "Use the tools to read, search and change files in this project, and check your changes when you can.",
    "Paths are relative to the project directory unless they are absolute.",
    "When the task is done, reply with a short summary of what you changed.",
  ].join("\n")
}

function describeError(error: unknown): string {
  if (error instanceof Error) return error.message || error.name
  return typeof error === "string" ? error : (JSON.stringify(error) ?? String(error))
}
