// The model behind subagents started over MCP: the client's, through `sampling/createMessage`.
import type { ClientCapabilities, CreateMessageRequest, Server } from "@modelcontextprotocol/server"
import { SAMPLING_PROVIDER, type SamplingClient, samplingModel } from "../../adapters/ai/sampling-model.ts"
import type { TurnModel } from "../../runtime/tool/subagent-services.ts"

/**
 * Whether the client samples for this server: it declared `sampling` at `initialize` (a 2025-era
 * connection; 2026-07-28 has no server-to-client requests, so a subagent there would need a round trip
 * of the client per model call).
 */
export function samples(capabilities: ClientCapabilities | undefined): boolean {
  return capabilities?.sampling !== undefined
}

/**
 * The client as the model of the connection's turns: each model call of a subagent is one
 * `sampling/createMessage` request (with the tools when the client declared `sampling.tools`, which
 * MCP 2025-11-25 added), waiting as long as an ask may wait (a person may review each request).
 */
export function clientModel(server: Server, options: { timeoutMs: number }): TurnModel {
  const client: SamplingClient = {
    get tools() {
      return server.getClientCapabilities()?.sampling?.tools !== undefined
    },
    get name() {
      return server.getClientVersion()?.name ?? "mcp-client"
    },
    createMessage: (request, { signal }) =>
      server.createMessage(request as unknown as CreateMessageRequest["params"], {
        timeout: options.timeoutMs,
        ...(signal ? { signal } : {}),
      }),
  }
  return { providerID: SAMPLING_PROVIDER, modelID: "client", model: samplingModel(client) }
}
