// Listing a server's tools as servers really list them.
import type { Client } from "@modelcontextprotocol/client"
import { z } from "zod"
import type { ListedTool } from "./mcp-tool.ts"

/**
 * One tool as listed, checked only for what toolbelt needs: a name. The SDK's own `listTools()` refuses
 * the whole listing when one tool's `inputSchema` lacks `"type": "object"`, which published servers do
 * (the reference GitLab server lists `{"$schema": …}` alone): one careless tool would take every tool of
 * the server away. Each schema is normalised when the tool is built (`normaliseInputSchema`).
 */
const Listed = z.looseObject({
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional().catch(undefined),
  inputSchema: z.unknown().optional(),
  annotations: z.record(z.string(), z.unknown()).optional().catch(undefined),
})

const Page = z.looseObject({
  tools: z.array(z.unknown()),
  nextCursor: z.string().optional(),
})

/** At most this many pages: a server whose cursor never ends must not hold the connection forever. */
const MAX_PAGES = 100

/**
 * Every tool of a server, page after page.
 * 1. `tools/list` with the cursor of the page before, each under the timeout.
 * 2. Entries without a string name are left out (nothing could call them); the rest kept as listed.
 */
export async function listTools(
  client: Client,
  timeoutMs: number,
  onDropped?: (entry: unknown) => void,
): Promise<ListedTool[]> {
  const tools: ListedTool[] = []
  let cursor: string | undefined
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.request(
      { method: "tools/list", params: cursor === undefined ? {} : { cursor } },
      Page,
      { timeout: timeoutMs },
    )
    for (const entry of result.tools) {
      const parsed = Listed.safeParse(entry)
      if (parsed.success) tools.push(parsed.data as ListedTool)
      else onDropped?.(entry)
    }
    cursor = result.nextCursor
    if (!cursor) break
  }
  return tools
}
