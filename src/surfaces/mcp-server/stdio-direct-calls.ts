// The common tool call over stdio, answered without the SDK's dispatch: a well-formed 2025-era
// `tools/call` of an enabled tool runs straight from the line it came on, and its result is written
// back as the SDK would have written it.
import type {
  CallToolResult,
  InputRequiredResult,
  JSONRPCMessage,
  RequestId,
  Server,
  ServerContext,
} from "@modelcontextprotocol/server"
import { isPlainObject } from "./json-rpc-body.ts"
import { isLegacyVersion } from "./protocol-versions.ts"

/**
 * A tool the direct path may run: its call, as the SDK's registration runs it. (An input-required
 * result belongs to 2026-07-28 connections, which the direct path never takes.)
 */
export type DirectTool = (args: unknown, ctx: ServerContext) => Promise<CallToolResult | InputRequiredResult>

export interface DirectCallsOptions {
  /** The SDK server of the connection: progress, forms and sampling still go through it. */
  readonly server: Server
  /** The revision the connection negotiated. */
  readonly protocolVersion: () => string | undefined
  /** The tool of that name, when it is registered, enabled, and answers without structured output. */
  readonly tool: (name: string) => DirectTool | undefined
  /** Writes one message on the wire. */
  readonly send: (message: JSONRPCMessage) => Promise<void>
  readonly onerror: (error: Error) => void
}

/** The parameters the direct path takes: a name, arguments, and at most a progress token in `_meta`. */
interface PlainCallParams {
  readonly name: string
  readonly arguments?: Record<string, unknown>
  readonly _meta?: { readonly progressToken?: string | number }
}

/**
 * Calls taken off the SDK's path. Each message of the wire is offered to `take` first:
 * 1. A `tools/call` request is taken only when the connection negotiated a 2025-era revision (set by
 *    `initialize`), its id is a string or an integer, its params are exactly a string `name`, an
 *    optional `arguments` object and an optional `_meta` holding only a progress token, and the tool
 *    is one `tool` gives. Anything else (another method, other keys, an unknown or disabled tool, a
 *    tool with an output schema) goes to the SDK, which answers it, or refuses it in its own words.
 * 2. The call runs as the SDK's `tools/call` handler runs it: a microtask later, with the arguments
 *    (`{}` when absent) as they came (toolbelt validates them itself), and a context whose signal the
 *    request's cancellation aborts, whose notifications (progress) go out as the request's, and whose
 *    forms and sampling requests are the server's. A handler that throws answers with the error's
 *    message as a tool error, as the SDK does.
 * 3. The response goes out as `{result, jsonrpc, id}`, the SDK's order; a cancelled request gets none.
 * 4. `notifications/cancelled` aborts a taken call (and still goes on to the SDK, which ignores ids it
 *    does not hold); the end of the connection aborts them all.
 * What this skips is the SDK's re-validation of messages toolbelt reads and writes itself: a
 * classification of each message (Zod, twice on stdio), the request's and the result's schemas.
 */
export class DirectCalls {
  readonly #options: DirectCallsOptions
  readonly #running = new Map<RequestId, AbortController>()

  constructor(options: DirectCallsOptions) {
    this.#options = options
  }

  /** 1. Runs the message when it is a call this path takes; false leaves it to the SDK. */
  take(message: JSONRPCMessage): boolean {
    if (!("method" in message)) return false
    if (!("id" in message)) {
      if (message.method === "notifications/cancelled") this.#cancel(message.params)
      return false
    }
    if (message.method !== "tools/call") return false
    const { id } = message
    if (typeof id !== "string" && !Number.isSafeInteger(id)) return false
    const params = plainCallParams(message.params)
    if (!params) return false
    const version = this.#options.protocolVersion()
    if (version === undefined || !isLegacyVersion(version)) return false
    const tool = this.#options.tool(params.name)
    if (!tool) return false
    this.#run(id, params, tool)
    return true
  }

  /** 4. The connection ended. */
  close(): void {
    for (const controller of this.#running.values()) controller.abort(new Error("The MCP connection closed."))
    this.#running.clear()
  }

  // 2. and 3.
  #run(id: RequestId, params: PlainCallParams, tool: DirectTool): void {
    const { server, send, onerror } = this.#options
    const controller = new AbortController()
    this.#running.set(id, controller)
    const ctx = {
      sessionId: undefined,
      mcpReq: {
        id,
        method: "tools/call",
        _meta: params._meta,
        requestState: noRequestState,
        signal: controller.signal,
        notify: (notification: Parameters<Server["notification"]>[0]) =>
          server.notification(notification, { relatedRequestId: id }),
        elicitInput: (
          form: Parameters<Server["elicitInput"]>[0],
          options?: Parameters<Server["elicitInput"]>[1],
        ) => server.elicitInput(form, options),
        requestSampling: (
          request: Parameters<Server["createMessage"]>[0],
          options?: Parameters<Server["createMessage"]>[1],
        ) => server.createMessage(request, options),
      },
      http: undefined,
    } as unknown as ServerContext
    Promise.resolve()
      .then(() => tool(params.arguments ?? {}, ctx))
      .catch(
        (error: unknown): CallToolResult => ({
          content: [{ type: "text", text: error instanceof Error ? error.message : String(error) }],
          isError: true,
        }),
      )
      .then(async (result) => {
        if (controller.signal.aborted) return
        await send({ result, jsonrpc: "2.0", id } as JSONRPCMessage)
      })
      .catch((error: unknown) =>
        onerror(new Error(`Could not send the response to request ${String(id)}: ${error}.`)),
      )
      .finally(() => {
        if (this.#running.get(id) === controller) this.#running.delete(id)
      })
  }

  #cancel(params: unknown): void {
    const { requestId, reason } = (params ?? {}) as { requestId?: RequestId; reason?: unknown }
    if (requestId === undefined) return
    this.#running.get(requestId)?.abort(reason)
  }
}

const noRequestState = () => undefined

/** The params when they are the plain shape the direct path takes (1), else undefined. */
function plainCallParams(params: unknown): PlainCallParams | undefined {
  if (!isPlainObject(params) || typeof params.name !== "string") return undefined
  for (const key in params) {
    if (key !== "name" && key !== "arguments" && key !== "_meta") return undefined
  }
  if (params.arguments !== undefined && !isPlainObject(params.arguments)) return undefined
  const meta = params._meta
  if (meta !== undefined) {
    if (!isPlainObject(meta)) return undefined
    for (const key in meta) if (key !== "progressToken") return undefined
    const token = meta.progressToken
    if (token !== undefined && typeof token !== "string" && !Number.isSafeInteger(token)) return undefined
  }
  return params as unknown as PlainCallParams
}
