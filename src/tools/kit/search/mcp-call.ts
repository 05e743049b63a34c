import { asSentence } from "../../../platform/text/sentence.ts"
import * as Tool from "../../../runtime/tool/index.ts"
import type { SearchCall } from "./provider.ts"

/**
 * Calls a tool on a provider's MCP endpoint (Exa, Parallel) through the runtime's MCP client and
 * returns the text of its first text block; undefined when it returned none. A tool error is a
 * ToolFailure with the provider's own message.
 */
export async function callMcpText({
  call,
  tool,
  args,
  url = call.settings.url,
  headers,
}: {
  call: SearchCall
  tool: string
  args: Record<string, unknown>
  url?: string
  headers?: Record<string, string>
}): Promise<string | undefined> {
  if (!call.callRemoteTool)
    throw new Tool.ToolFailure(
      `The ${call.settings.provider} search provider speaks MCP, and this runtime has no MCP client: run the tool through a toolbelt (createToolbelt, the CLI or the MCP server).`,
    )
  const result = await call.callRemoteTool({
    url,
    ...(headers ? { headers } : {}),
    tool,
    arguments: args,
    signal: call.signal,
    timeoutMs: call.settings.timeoutMs,
  })
  const text = result.content.find((block) => block.type === "text" && block.text)?.text
  if (result.isError)
    throw new Tool.ToolFailure(
      `The ${call.settings.provider} search provider failed: ${asSentence(text ?? "it gave no reason")} Try again, or a simpler query.`,
    )
  return text
}
