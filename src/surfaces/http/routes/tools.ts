// The tools an agent may call, with their JSON Schemas, sizes in tokens, and what tool search defers.
import { z } from "zod"
import { internals } from "../../../compose/internals.ts"
import { TOKENIZER } from "../../../platform/text/tokens/count.ts"
import type { ApiDeps } from "../deps.ts"
import { type AnyRoute, route } from "../route.ts"
import { ToolDeferral, ToolInfo } from "../schemas.ts"
import { checkAgent } from "./sessions.ts"

const ToolsQuery = z.object({
  agent: z
    .string()
    .regex(/^[\w-]{1,64}$/)
    .optional()
    .describe("The agent the tools are prepared for (default: the server's)."),
})

export function toolRoutes(deps: ApiDeps): AnyRoute[] {
  return [
    route({
      id: "listTools",
      method: "get",
      path: "/api/tools",
      tag: "tools",
      summary:
        "The tools an agent may call (registered, available, not hidden by its rules), each with its size in tokens and whether it is deferred",
      description:
        "Deferred tools are listed too (`deferred: true`): clients do not get them up front, `tool_search` finds them. Why they are deferred: `GET /api/tools/deferral`.",
      query: ToolsQuery,
      responses: { 200: { description: "The tools, by name.", schema: z.array(ToolInfo) } },
      handler: async ({ query }) => {
        const agent = query.agent ?? deps.agent
        checkAgent(deps, agent)
        const tools = await deps.toolbelt.tools({ agent, client: "http", listing: "all" })
        return tools
          .map((tool) => ({
            name: tool.name,
            description: tool.description,
            inputSchema: tool.inputSchema,
            annotations: tool.annotations,
            source: tool.entry.source,
            tokens: tool.tokens ?? 0,
            deferred: tool.deferred === true,
          }))
          .sort((a, b) => a.name.localeCompare(b.name))
      },
    }),
    route({
      id: "getToolDeferral",
      method: "get",
      path: "/api/tools/deferral",
      tag: "tools",
      summary:
        "Tool search's deferral for an agent: the mode, the budget, the tokens of every definition, how many are deferred and why",
      query: ToolsQuery,
      responses: { 200: { description: "The deferral in effect.", schema: ToolDeferral } },
      handler: async ({ query }) => {
        const agent = query.agent ?? deps.agent
        checkAgent(deps, agent)
        const state = await internals(deps.toolbelt).toolSearch.state({ agent, client: "http" })
        return { ...state, tokenizer: TOKENIZER }
      },
    }),
  ]
}
