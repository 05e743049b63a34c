import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { withEndpointFetch } from "../../platform/net/endpoint-fetch.ts"
import type { RemoteToolCall, RemoteToolResult } from "../../runtime/tool/services.ts"
import { ownVersion } from "./connect-mcp-servers.ts"
import { closeClient } from "./open-client.ts"

/**
 * One call of one tool on a remote MCP server, for built-ins whose backend speaks MCP (Exa's and
 * Parallel's search endpoints): the same SDK client as configured servers, over Streamable HTTP.
 * 1. Connect (the initialize handshake) within `timeoutMs`, through the proxies `env` names.
 * 2. Call the tool with the caller's signal and the same timeout.
 * 3. End the session on the server and close the client, whatever happened.
 */
export async function callRemoteTool(
  call: RemoteToolCall,
  env?: Readonly<Record<string, string | undefined>>,
): Promise<RemoteToolResult> {
  return withEndpointFetch(env, async (fetch) => {
    const transport = new StreamableHTTPClientTransport(new URL(call.url), {
      fetch,
      ...(call.headers ? { requestInit: { headers: { ...call.headers } } } : {}),
    })
    const client = new Client({ name: "toolbelt", version: await ownVersion() })
    try {
      await client.connect(transport, { timeout: call.timeoutMs, signal: call.signal })
      const result = await client.callTool(
        { name: call.tool, arguments: { ...call.arguments } },
        { signal: call.signal, timeout: call.timeoutMs },
      )
      const content = Array.isArray(result.content) ? (result.content as RemoteToolResult["content"]) : []
      return { content, isError: result.isError === true }
    } finally {
      await closeClient(client)
    }
  })
}
