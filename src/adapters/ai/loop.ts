import { hostname } from "node:os"
import {
  defaultSettingsMiddleware,
  isStepCount,
  type ModelMessage,
  type ProviderMetadata,
  streamText,
  type TextStreamPart,
  type ToolSet,
  wrapLanguageModel,
} from "ai"
import type { ToolPart } from "../../platform/store/part.ts"
import { ascending } from "../../platform/util/id.ts"
import { DEFAULT_AGENT } from "../../runtime/permission/agents/agent.ts"
import { type HostSource, hostOf } from "./host.ts"
import { acceptsToolMedia } from "./model-output.ts"
import { StreamProcessor } from "./processor.ts"
import { replaySession, type StoredMessage } from "./replay.ts"
import type { ProcessedStep } from "./step-log.ts"
import { type ModelObject, toAISDKTools } from "./tools.ts"

/** Steps (model calls) one turn may take unless the call or the agent says otherwise (the spec's `agent.steps ?? 100`). */
export const DEFAULT_STEPS = 100

/** Added before the last allowed step, which gets no tools: the model must answer in text. */
export const MAX_STEPS_PROMPT =
  "You have reached the maximum number of steps for this turn, so tools are no longer available. Do not call any tool. Reply with what you did, what is left to do, and what the user should do next."

export interface RunTurnOptions {
  readonly toolbelt: HostSource
  /** The model and the ids its tools are prepared for (see `resolveModel`). */
  readonly model: { readonly model: ModelObject; readonly providerID: string; readonly modelID: string }
  readonly prompt: string
  /** Continue this session (its stored messages and parts are replayed); default: a new session. */
  readonly sessionID?: string
  /**
   * The agent to run as; the session runs as it from now on. Default: the agent the session runs as
   * (plan mode switches it), else `build`.
   */
  readonly agent?: string
  /**
   * Whether a person can answer questions (a terminal): tools that ask (question, plan_exit) are offered
   * only then. Default: not known, offered (a library user answers through the bus).
   */
  readonly interactive?: boolean
  /** The most model calls of the turn (default: the agent's `steps`, else 100); the last one answers without tools. */
  readonly steps?: number
  readonly abort?: AbortSignal
  /** The system instructions (default: a short coding-agent brief naming the project directory). */
  readonly instructions?: string
  /** OpenAI strict mode for the tool schemas that allow it. */
  readonly strict?: boolean
  /**
   * Options for the provider, by provider name, as the AI SDK takes them: e.g. Anthropic thinking
   * (`{anthropic: {thinking: {type: "enabled", budgetTokens: 4000}}}`), OpenAI without server-side
   * storage (`{openai: {store: false}}`: reasoning then travels encrypted in the history). They go with
   * the model, so the subagents it starts (which inherit it) get them too.
   */
  readonly providerOptions?: ProviderMetadata
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
  /** The last assistant message of the turn (one more each time the session switched agents). */
  readonly messageID: string
  /** The agent the session runs as at the end of the turn. */
  readonly agent: string
  readonly steps: readonly ProcessedStep[]
  /** Whether the turn used every step it was allowed. */
  readonly stepLimit: boolean
  readonly parts: readonly ToolPart[]
}

/**
 * One agent turn: the prompt, the model and the toolbelt's tools, until the model stops calling tools.
 *
 * 1. The session: a new one, or the given one with its history replayed from the store (every call
 *    has a result, interrupted ones included). The user message is stored. The agent: the one given
 *    (the session runs as it from now on), else the one the session runs as, else `build`.
 * 2. The tool set for this assistant message, as the agent sees it (`toAISDKTools`; each call runs as
 *    the agent the session runs as at that moment), and a stream processor on the same calls.
 * 3. `streamText` with the repair function, the step limit (the last step of the turn without tools),
 *    a stop after any blocked call, and a stop after the step in which the session switched agents
 *    (plan mode); the processor records every tool part as the stream goes. Deferred tools are in the
 *    set from the start; the wrapped model is offered each from the step after tool_search (or a call
 *    by name) loaded it into the session, so `prepareStep` leaves tools alone but on the last step.
 * 4. The assistant message (its steps: text and calls, and the reasoning and provider metadata that
 *    came with them, which replay sends back) is stored.
 * 5. The session switched agents, and the turn has steps left: back to 2 as the new agent, with the
 *    tools it sees and the history so far. Otherwise the status says how the turn ended.
 */
export async function runTurn(options: RunTurnOptions): Promise<TurnResult> {
  const toolbelt = hostOf(options.toolbelt)
  const model = withProviderOptions(options.model, options.providerOptions)
  const media = acceptsToolMedia(options.model.providerID)

  // 1. Session, history and agent.
  const store = toolbelt.store
  let sessionID = options.sessionID
  let history: ModelMessage[] = []
  let agent = options.agent ?? (sessionID ? store.sessionAgents.get(sessionID) : undefined) ?? DEFAULT_AGENT
  const steps = Math.max(1, options.steps ?? toolbelt.policy?.agents.get(agent)?.steps ?? DEFAULT_STEPS)
  if (sessionID && store.sessions.get(sessionID)) {
    history = replaySession(store.messages.list(sessionID), store.parts.list(sessionID), { media })
  } else {
    sessionID = store.sessions.create({
      ...(sessionID ? { id: sessionID } : {}),
      projectID: toolbelt.directory,
      // The fleet's session list says which host a session runs on.
      host: hostname(),
      agent,
      title: options.prompt.slice(0, 100),
    }).id
  }
  const session = sessionID
  if (options.agent !== undefined) store.sessionAgents.set(session, options.agent)
  const agentNow = () => store.sessionAgents.get(session) ?? agent
  // What background subagents said since the session's last turn comes before the prompt.
  // Each message stored is published as stored, so a page follows the conversation.
  const put = (message: Parameters<typeof store.messages.put>[0]) => {
    const record = store.messages.put(message)
    toolbelt.bus.publish("message.updated", { sessionID: record.sessionID, message: record })
  }
  for (const notice of toolbelt.takeNotices?.(sessionID) ?? []) {
    put({ sessionID, role: "user", data: { role: "user", text: notice } satisfies StoredMessage })
    history.push({ role: "user", content: notice })
  }
  put({ sessionID, role: "user", data: { role: "user", text: options.prompt } satisfies StoredMessage })
  let messageID = ascending("msg")
  options.onStart?.({ sessionID, messageID })

  const done: ProcessedStep[] = []
  const parts: ToolPart[] = []
  let messages: ModelMessage[] = [...history, { role: "user", content: options.prompt }]
  for (;;) {
    // 2. Tools and processor, as the agent sees them.
    const asAgent = agent
    const ai = await toAISDKTools({
      toolbelt,
      sessionID,
      messageID,
      agent: asAgent,
      agentNow,
      model,
      client: "cli",
      ...(options.interactive === undefined ? {} : { interactive: options.interactive }),
      ...(options.abort ? { abort: options.abort } : {}),
      ...(options.strict ? { strict: true } : {}),
    })
    const processor = new StreamProcessor({ toolbelt, tools: ai })

    // 3. The loop, until the model answers, a call is blocked, or the session switches agents.
    const left = steps - done.length
    const result = streamText({
      model: ai.wrap(model.model),
      tools: ai.tools,
      repairToolCall: ai.repairToolCall,
      instructions: options.instructions ?? defaultInstructions(toolbelt.directory),
      messages,
      stopWhen: [isStepCount(left), ai.stopWhen, () => agentNow() !== asAgent],
      prepareStep: ({ stepNumber, messages }) =>
        steps > 1 && stepNumber === left - 1
          ? { activeTools: [], messages: [...messages, { role: "user", content: MAX_STEPS_PROMPT }] }
          : undefined,
      ...(options.abort ? { abortSignal: options.abort } : {}),
      onError: () => {},
    })
    const streaming = messageID
    const processed = await processor.consume(result.stream, (part) => {
      // The model's text as it streams, before its message is stored at the end of the loop.
      if (part.type === "text-delta" && part.text)
        toolbelt.bus.publish("message.text.delta", {
          sessionID: session,
          messageID: streaming,
          delta: part.text,
        })
      options.onPart?.(part)
    })

    // 4. Store the assistant message.
    put({
      id: messageID,
      sessionID,
      role: "assistant",
      data: {
        role: "assistant",
        // With the reasoning and the provider's metadata where the step had any (replay sends them back).
        steps: processed.steps.map((step) => ({
          text: step.text,
          calls: step.calls,
          ...(step.content ? { content: step.content } : {}),
        })),
      } satisfies StoredMessage,
    })
    store.sessions.touch(sessionID)
    done.push(...processed.steps)
    parts.push(...processed.parts)

    // 5. Go on as the agent the session switched to, or report.
    const base = {
      text: processed.text,
      sessionID,
      messageID,
      agent: agentNow(),
      steps: done,
      stepLimit: done.length >= steps,
      parts,
    }
    if (processed.aborted || options.abort?.aborted)
      return { ...base, status: "aborted", error: "The turn was aborted." }
    if (processed.error !== undefined)
      return { ...base, status: "failed", error: describeError(processed.error) }
    if (ai.calls.blocked !== undefined) return { ...base, status: "blocked", error: ai.calls.blocked }
    if (base.agent === asAgent || base.stepLimit || processed.steps.length === 0)
      return { ...base, status: "finished" }
    agent = base.agent
    messageID = ascending("msg")
    messages = replaySession(store.messages.list(sessionID), store.parts.list(sessionID), { media })
  }
}

/** The model with the provider options as its defaults (a call's own options win). */
function withProviderOptions(
  model: RunTurnOptions["model"],
  providerOptions: ProviderMetadata | undefined,
): RunTurnOptions["model"] {
  if (!providerOptions) return model
  return {
    ...model,
    model: wrapLanguageModel({
      model: model.model as Parameters<typeof wrapLanguageModel>[0]["model"],
      middleware: defaultSettingsMiddleware({ settings: { providerOptions } }),
    }),
  }
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
