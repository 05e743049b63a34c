// The tools an agent may call, with their JSON Schemas.
import { z } from "zod"
import type { ApiDeps } from "../deps.ts"
import { type AnyRoute, route } from "../route.ts"
import { ToolInfo } from "../schemas.ts"
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
      summary: "The tools an agent may call (registered, available, not hidden by its rules)",
      query: ToolsQuery,
      responses: { 200: { description: "The tools, by name.", schema: z.array(ToolInfo) } },
      handler: async ({ query }) => {
        const agent = query.agent ?? deps.agent
        checkAgent(deps, agent)
        const tools = await deps.toolbelt.tools({ agent, client: "http" })
        return tools
          .map((tool) => ({
            name: tool.name,
            description: tool.description,
            inputSchema: tool.inputSchema,
            annotations: tool.annotations,
            source: tool.entry.source,
          }))
          .sort((a, b) => a.name.localeCompare(b.name))
      },
    }),
  ]
}
