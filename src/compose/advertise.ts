// The tools an agent may see, as a toolbelt lists them.

import type { Hooks } from "../runtime/hooks/hooks.ts"
import { DEFAULT_AGENT } from "../runtime/permission/agents/agent.ts"
import type { Ruleset } from "../runtime/permission/rule.ts"
import { disabled } from "../runtime/permission/ruleset.ts"
import type { Advertised, Registry, ToolsQuery } from "../runtime/registry/registry.ts"

/**
 * Lists the tools an agent may see.
 * 1. The registered tools available to the agent (`build` unless named), each deciding from the query
 *    and what its calls would get in `ctx.extra` (config, environment).
 * 2. Without those its rules disable, each with the permission it belongs to: bash_output and
 *    bash_kill go when bash is denied. Its ruleset and every constraint it is held to count (a
 *    tool one of them fully denies would be denied on every call).
 * 3. Each definition as the `tool.definition` hooks rewrite it, when there are any.
 */
export function advertise({
  registry,
  hooks,
  rulesetsFor,
  extraFor,
}: {
  registry: Registry
  hooks: Hooks
  /** The agent's ruleset and the constraints a call of it (in the session) is held to. */
  rulesetsFor: (agent: string, sessionID?: string) => readonly Ruleset[]
  extraFor: (agent: string) => Readonly<Record<string, unknown>>
}): (query?: ToolsQuery) => Promise<Advertised[]> {
  return async (query = {}) => {
    const agent = query.agent ?? DEFAULT_AGENT
    // The query's `extra` (the turn's model) goes over the services.
    const extra = { ...extraFor(agent), ...query.extra }
    const advertised = await registry.tools({ ...query, extra, agent })
    const permissions = advertised.map((tool) => tool.permission)
    const hidden = new Set<string>()
    for (const rules of rulesetsFor(agent, query.sessionID))
      for (const permission of disabled(permissions, rules)) hidden.add(permission)
    const visible = advertised.filter((tool) => !hidden.has(tool.permission))
    if (!hooks.has("tool.definition")) return visible
    return Promise.all(
      visible.map(async (tool) => {
        const rewritten = await hooks.rewriteDefinition(
          { toolID: tool.name },
          { description: tool.description, parameters: tool.inputSchema },
        )
        return { ...tool, description: rewritten.description, inputSchema: rewritten.parameters }
      }),
    )
  }
}

/**
 * The tools not offered to an agent, each with the reason it gives.
 * 1. The registered tools that are not available and say why (a backend not configured).
 * 2. Then the tool sources that failed (an MCP server that did not start or stopped), one entry each
 *    named after the source (`mcp:<server>`), so a missing server is listed beside the missing tools
 *    instead of being only a line in a log.
 */
export function withheld({
  registry,
  extraFor,
  failedSources = () => [],
}: {
  registry: Registry
  extraFor: (agent: string) => Readonly<Record<string, unknown>>
  failedSources?: () => readonly { name: string; reason: string }[]
}): (query?: ToolsQuery) => Promise<{ name: string; reason: string }[]> {
  return async (query = {}) => {
    const agent = query.agent ?? DEFAULT_AGENT
    const tools = await registry.withheld({ extra: extraFor(agent), ...query, agent })
    return [...tools, ...failedSources()]
  }
}
