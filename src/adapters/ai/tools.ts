import {
  type JSONSchema7,
  jsonSchema,
  type LanguageModel,
  type StopCondition,
  type ToolCallRepairFunction,
  type ToolExecutionOptions,
  type ToolSet,
  tool,
  wrapLanguageModel,
} from "ai"
import type { ToolPart } from "../../platform/store/part.ts"
import type { FilePart } from "../../platform/text/content.ts"
import { DEFAULT_AGENT } from "../../runtime/permission/agents/agent.ts"
import type { Turn } from "../../runtime/registry/registry.ts"
import type { Settlement } from "../../runtime/settle/settle.ts"
import type { ConversationMessage } from "../../runtime/tool/context.ts"
import { inputJsonSchema, internals } from "../../runtime/tool/internal.ts"
import { Calls } from "./calls.ts"
import { type HostSource, hostOf, type ToolHost } from "./host.ts"
import { acceptsToolMedia, modelOutput } from "./model-output.ts"
import { INVALID, matchCase, repairToolCall } from "./repair.ts"
import { type JsonSchema, prepareSchema, restoreOptional, schemaFamily, strictSchema } from "./schema.ts"
import { listingFor, OfferedTools } from "./tool-search.ts"

export interface ToAISDKToolsOptions {
  readonly toolbelt: HostSource
  readonly sessionID: string
  /** The assistant message the calls belong to (every part records it). */
  readonly messageID: string
  /** Whose permissions apply and which tools it sees (default `build`). */
  readonly agent?: string
  /**
   * The agent each call runs as, asked at the call (default: `agent`): a session that switches agents
   * mid-message (plan mode) has the new agent's rules apply from the next call on.
   */
  readonly agentNow?: () => string
  /** Whether a person can answer questions here: tools that ask are offered only then (default: not known). */
  readonly interactive?: boolean
  /**
   * The model the tools are prepared for: schema transforms and media support depend on it. With the
   * model object too, tools that start turns of their own (task's subagents) are offered and use it.
   */
  readonly model: { readonly providerID: string; readonly modelID: string; readonly model?: ModelObject }
  /** Aborts every call of this set (on top of the AI SDK's own abort signal). */
  readonly abort?: AbortSignal
  /** The surface asking, for tools that are only offered to some clients (default `sdk`). */
  readonly client?: string
  /** OpenAI strict mode for the tools whose schema allows it (OpenAI models only; default false). */
  readonly strict?: boolean
  /** Whether tool results may carry images (default: whether the provider accepts them). */
  readonly media?: boolean
}

/** What `execute` returns for a completed call; `toModelOutput` turns it into what the model sees. */
export interface ToolOutput {
  readonly title: string
  readonly output: string
  readonly metadata: Record<string, unknown>
  readonly attachments: readonly FilePart[]
}

/** A model the AI SDK can call (a provider's model object; gateway id strings are not wrapped). */
export type ModelObject = Exclude<LanguageModel, string>

export interface AISDKTools {
  /**
   * Every tool the agent may see (deferred ones included, so their calls parse) plus `invalid`, sorted
   * by name; `execute` settles through the toolbelt.
   */
  readonly tools: ToolSet
  /** The names offered to the model up front: every tool but `invalid` and the deferred ones, sorted. */
  readonly activeTools: string[]
  /** The names offered to the model now: `activeTools` and the deferred tools the session loaded since. */
  offered(): string[]
  /** Every name a call may use: `activeTools` and every deferred tool, sorted. */
  readonly known: string[]
  /** The registrations advertised for this turn (calls to a tool replaced since are refused as stale). */
  readonly turn: Turn
  /** Case repair and the `invalid` fallback; pass as `repairToolCall` (or `experimental_repairToolCall`). */
  readonly repairToolCall: ToolCallRepairFunction<ToolSet>
  /** Stops the loop after the step in which a call was blocked (rejected permission, denied doom loop). */
  readonly stopWhen: StopCondition<ToolSet, any>
  /**
   * The model, offered only `offered()` at each of its calls (a tool tool_search loads in one step is
   * offered from the next). Use this instead of streamText's `activeTools` option: in AI SDK v7 that
   * option also limits which calls can be parsed, which would make `invalid` unreachable.
   */
  wrap(model: ModelObject): ReturnType<typeof wrapLanguageModel>
  /** The calls of this message, shared with the stream processor. */
  readonly calls: Calls
  readonly sessionID: string
  readonly messageID: string
  readonly agent: string
}

/**
 * The toolbelt's tools as an AI SDK tool set for one assistant message.
 *
 * 1. Ask the toolbelt which tools the agent sees for this model (`disabled` tools are already gone;
 *    deferred ones included and marked), capture the turn (the registration behind every name,
 *    `invalid` included), sort by name. Offered up front: those not deferred; a deferred tool from the
 *    step after the session loaded it (`OfferedTools`).
 * 2. For each tool: its JSON Schema through the normalisation and the provider's transforms (and
 *    OpenAI strict mode when asked and possible); no validation in the SDK: settlement validates and
 *    words the errors.
 * 3. `execute` hands the call to settlement (`toolbelt.call`) with the SDK call's context: toolCallId →
 *    callID, abortSignal → abort, messages; the part id the processor chose; the captured turn. A
 *    completed call returns `{title, output, metadata, attachments}`; an error throws its message
 *    (the SDK reports a tool error); a blocked call also marks the turn to stop.
 * 4. `toModelOutput` gives the model the bounded text, with images where the provider takes them.
 */
export async function toAISDKTools(options: ToAISDKToolsOptions): Promise<AISDKTools> {
  const { sessionID, messageID, model } = options
  const toolbelt = hostOf(options.toolbelt)
  const agent = options.agent ?? DEFAULT_AGENT
  const media = options.media ?? acceptsToolMedia(model.providerID)
  const strict = options.strict === true && schemaFamily(model) === "openai"
  const calls = new Calls()
  // The turn's model, for the tools that need one (task): on the query and on every call.
  const turnModel = model.model
    ? { model: { providerID: model.providerID, modelID: model.modelID, model: model.model } }
    : undefined

  // 1. Advertised tools and the turn.
  const advertised = (
    await toolbelt.tools({
      agent,
      providerID: model.providerID,
      modelID: model.modelID,
      client: options.client ?? "sdk",
      sessionID,
      listing: listingFor(toolbelt.registry),
      ...(turnModel ? { extra: turnModel } : {}),
      ...(options.interactive === undefined ? {} : { interactive: options.interactive }),
    })
  ).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  const turn = new Map(toolbelt.registry.turn(advertised))
  const invalidEntry = toolbelt.registry.resolve(INVALID)
  if (invalidEntry) turn.set(INVALID, invalidEntry.identity)
  // Every name a call may use (repair matches case against them), and those offered up front.
  const known = advertised.map((item) => item.name).filter((name) => name !== INVALID)
  const activeTools = advertised
    .filter((item) => item.name !== INVALID && item.deferred !== true)
    .map((item) => item.name)
  const offered = new OfferedTools({
    host: toolbelt,
    sessionID,
    upFront: activeTools,
    deferred: advertised.filter((item) => item.deferred === true).map((item) => item.name),
  })

  const execute = async (
    name: string,
    input: unknown,
    sdk: ToolExecutionOptions<any>,
    restore: (input: unknown) => unknown,
  ): Promise<ToolOutput> => {
    const callID = sdk.toolCallId
    const signal = anySignal(sdk.abortSignal, options.abort)
    // The part is recorded under the name the model used (its case repaired); `invalid` calls too.
    const recordAs = name === INVALID ? attempted(input, known) : name
    // A deferred tool called by name is loaded: offered from the next step.
    offered.called(name)
    if (name === INVALID && !toolbelt.store.parts.get(sessionID, callID)) {
      // Stored under the meant name before settlement records it (as `invalid`, else).
      ensurePending(toolbelt, calls.open(callID, recordAs), options)
    }
    const settlement = await calls.dispatch(callID, recordAs, (entry) =>
      toolbelt.call({
        tool: name,
        input: restore(input),
        sessionID,
        messageID,
        agent: options.agentNow?.() ?? agent,
        callID,
        ...(signal ? { abort: signal } : {}),
        messages: sdk.messages as unknown as ConversationMessage[],
        turn,
        partID: entry.partID,
        ...(turnModel ? { extra: turnModel } : {}),
      }),
    )
    if (settlement.part.tool !== recordAs) republish(toolbelt, settlement.part)
    if (settlement.status === "error") {
      if (settlement.blocked) calls.block(settlement.error)
      throw new ToolCallFailed(settlement)
    }
    return {
      title: settlement.title,
      output: settlement.output,
      metadata: settlement.metadata,
      attachments: settlement.attachments,
    }
  }

  // 2. One AI SDK tool per advertised tool, plus `invalid`.
  const tools: ToolSet = {}
  const entries = invalidEntry
    ? [...advertised.filter((item) => item.name !== INVALID), await invalidAdvert(toolbelt, agent)]
    : advertised
  for (const item of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const schema = prepareSchema(item.inputSchema, model)
    const strictForm = strict ? strictSchema(schema) : undefined
    const restore = strictForm
      ? (input: unknown) => restoreOptional(input, schema)
      : (input: unknown) => input
    tools[item.name] = tool({
      description: item.description,
      inputSchema: jsonSchema<unknown>((strictForm ?? schema) as JSONSchema7),
      ...(strictForm ? { strict: true } : {}),
      execute: (input: unknown, sdk: ToolExecutionOptions<any>) => execute(item.name, input, sdk, restore),
      toModelOutput: ({ output }: { output: ToolOutput }) => modelOutput(output, { media }),
    })
  }

  return {
    tools,
    activeTools,
    offered: () => offered.names(),
    known,
    turn,
    repairToolCall: repairToolCall({ offered: () => offered.names(), known }),
    stopWhen: () => calls.blocked !== undefined,
    wrap: (inner) =>
      wrapLanguageModel({
        model: inner,
        middleware: {
          transformParams: async ({ params }) => ({
            ...params,
            ...(params.tools ? { tools: params.tools.filter((item) => offered.has(item.name)) } : {}),
          }),
        },
      }),
    calls,
    sessionID,
    messageID,
    agent,
  }
}

/** The error `execute` throws for a call that settled as an error; the model reads its message. */
export class ToolCallFailed extends Error {
  override readonly name = "ToolCallFailed"
  readonly settlement: Extract<Settlement, { status: "error" }>
  constructor(settlement: Extract<Settlement, { status: "error" }>) {
    super(settlement.error)
    this.settlement = settlement
  }

  /** The AI SDK shows the model `String(error)`: the message alone, as settlement worded it. */
  override toString(): string {
    return this.message
  }
}

/** `invalid` as a tool entry: never advertised (it declares itself unavailable), only re-dispatched to. */
async function invalidAdvert(
  toolbelt: ToolHost,
  agent: string,
): Promise<{ name: string; description: string; inputSchema: JsonSchema }> {
  const entry = toolbelt.registry.resolve(INVALID)!
  const instance = await toolbelt.registry.instantiate(entry, agent)
  return {
    name: INVALID,
    description: internals(instance).description,
    inputSchema: inputJsonSchema(instance),
  }
}

/** The tool an `invalid` call was meant for, as the part records it. */
function attempted(input: unknown, offered: readonly string[]): string {
  const meant = (input as { tool?: unknown } | undefined)?.tool
  if (typeof meant !== "string" || !meant) return INVALID
  return matchCase(meant, offered) ?? meant
}

/** Persists the pending part of an `invalid` call the processor has not seen, under the meant name. */
function ensurePending(
  toolbelt: ToolHost,
  entry: { partID: string; tool: string; callID: string },
  options: ToAISDKToolsOptions,
): void {
  const part: ToolPart = {
    id: entry.partID,
    sessionID: options.sessionID,
    messageID: options.messageID,
    type: "tool",
    callID: entry.callID,
    tool: entry.tool,
    state: { status: "pending", input: {}, raw: "" },
  }
  try {
    toolbelt.store.parts.upsert(part)
  } catch {
    // Already recorded (a resumed run): settlement answers from the record.
  }
}

/** Publishes the part as stored, when settlement published it under another name (`invalid`). */
function republish(toolbelt: ToolHost, part: ToolPart): void {
  const stored = toolbelt.store.parts.get(part.sessionID, part.callID)
  if (stored) toolbelt.bus.publish("message.part.updated", { part: stored })
}

function anySignal(...signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
  const present = signals.filter((signal): signal is AbortSignal => signal !== undefined)
  if (present.length <= 1) return present[0]
  return AbortSignal.any(present)
}
