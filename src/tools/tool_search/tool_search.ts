import { z } from "zod"
import * as Tool from "../../runtime/tool/index.ts"
import { builtinSchema } from "../../runtime/tool/schema-source.ts"
import { services } from "../../runtime/tool/services.ts"
import { loadText } from "../kit/load-text.ts"
import { type DeferredGroup, type FoundTool, toolSearchService } from "./service.ts"

/** Matches given when the call names no limit, and the most it may ask for. */
export const DEFAULT_LIMIT = 5
export const MAX_LIMIT = 20

/** Bytes of full definitions one result carries at most; past it the rest are named, not shown. */
export const DEFINITIONS_BYTES = 40_000

/** Characters of "what it is" all the groups in the description share (~750 tokens), 60 at most each. */
const ABOUT_CHARS = 3_000
/** The longest query taken. */
const MAX_QUERY = 2_000
const ABOUT_MAX = 60

const parameters = builtinSchema("tool_search", () =>
  z.object({
    query: z
      .string()
      .trim()
      .min(1, 'query must not be empty: describe the action you need, e.g. "create a github issue"')
      // The ranker reads a query's first 2,000 characters; a longer one is a mistake worth saying.
      .max(
        MAX_QUERY,
        `query must be at most ${MAX_QUERY} characters: describe the action you need in a few words`,
      )
      .describe("What you need a tool for, in plain words: the action and what it acts on"),
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAX_LIMIT)
      .optional()
      .describe(`How many tools to return (1-${MAX_LIMIT}, default ${DEFAULT_LIMIT})`),
  }),
)
type Parameters = Tool.SchemaOf<typeof parameters>

export interface ToolSearchMetadata extends Record<string, unknown> {
  /** The names found, best first (each now loaded into the session). */
  matches: string[]
}

/**
 * The tool's description: what it does, then where the deferred tools come from (each source with its
 * count and a few words), kept short: the words per source shrink as sources grow.
 */
export function describeToolSearch(groups: readonly DeferredGroup[]): string {
  const each = Math.max(0, Math.min(ABOUT_MAX, Math.floor(ABOUT_CHARS / Math.max(1, groups.length))))
  const lines = groups.map((group) => {
    const about = group.about ? clip(group.about.replace(/\s+/g, " ").trim(), each) : ""
    return `- ${group.name} (${group.tools} tool${group.tools === 1 ? "" : "s"})${about ? `: ${about}` : ""}`
  })
  return loadText(import.meta.url, "description.txt").replace(
    "{deferred}",
    lines.length ? lines.join("\n") : "(none right now)",
  )
}

/**
 * The `tool_search` tool: finds deferred tools (registered, callable, not listed up front) and loads
 * them into the session.
 *
 * 1. Search through the `toolSearch` service: the deferred tools of the call's agent and session,
 *    best first, at most `limit` (reranked by the session's model when config asks and one is given).
 * 2. Load the matches into the session: listed for it from then on.
 * 3. Shape: one line per match (`<name>: <summary>`), a sentence saying they are loaded, then each full
 *    definition (name, description, input JSON Schema) in a `<tool>` block, as many as fit in ~40 KB;
 *    the others are named with how to get them. No match: say so, with what is deferred and from where.
 */
export const ToolSearchTool = Tool.define<Parameters, ToolSearchMetadata>(
  "tool_search",
  () => ({
    description: describeToolSearch([]),
    parameters,
    async execute(params, ctx) {
      const service = toolSearchService(ctx.extra)
      if (!service)
        throw new Tool.ToolFailure(
          "tool_search has no tool index here: it works inside a toolbelt (toolbelt mcp, serve, run, or createToolbelt), where deferred tools are registered. Call it through one of them.",
        )
      const limit = params.limit ?? DEFAULT_LIMIT

      // 1. Search.
      const { matches, deferred } = await service.search({
        query: params.query,
        limit,
        agent: ctx.agent,
        sessionID: ctx.sessionID,
        model: services(ctx).model,
        signal: ctx.abort,
      })
      if (matches.length === 0)
        return {
          title: `No tools for "${params.query}"`,
          output: noMatch(params.query, deferred),
          metadata: { matches: [] },
        }

      // 2. Load.
      const names = matches.map((match) => match.name)
      service.load(ctx.sessionID, names)

      // 3. Shape.
      return {
        title: `${matches.length} tool${matches.length === 1 ? "" : "s"} for "${params.query}"`,
        output: found(matches),
        metadata: { matches: names },
      }
    },
  }),
  {
    annotations: { readOnly: true, idempotent: true }, // Needs a toolbelt's index, which lists it only while some tools (MCP, plugins, tool files) are deferred.
    available: (env) => env.extra?.toolSearch !== undefined,
  },
)

function found(matches: readonly FoundTool[]): string {
  const list = matches.map((match) => `${match.name}: ${match.summary}`)
  const shown: string[] = []
  const left: string[] = []
  let bytes = 0
  for (const match of matches) {
    const block = definition(match)
    const size = Buffer.byteLength(block)
    // The best match is always shown whole; the output bounds take care of a giant one.
    if (shown.length > 0 && bytes + size > DEFINITIONS_BYTES) left.push(match.name)
    else {
      shown.push(block)
      bytes += size
    }
  }
  const loaded =
    matches.length === 1
      ? "This tool is now loaded: call it by the name above. Its definition:"
      : "These tools are now loaded: call them by the names above. Their definitions:"
  const rest = left.length
    ? [
        "",
        `The definitions of ${left.join(", ")} are left out to keep this short; they are loaded too (listed from the next turn). For one of them now, search with its name and limit 1.`,
      ]
    : []
  return [...list, "", loaded, "", shown.join("\n\n"), ...rest].join("\n")
}

function definition(match: FoundTool): string {
  return [
    `<tool name="${match.name}">`,
    `<description>${match.description.trim() || "(no description)"}</description>`,
    `<input_schema>${JSON.stringify(match.inputSchema)}</input_schema>`,
    "</tool>",
  ].join("\n")
}

function noMatch(query: string, deferred: readonly DeferredGroup[]): string {
  if (deferred.length === 0)
    return `No tool matches "${query}": no tools are deferred right now, so every tool there is is already listed.`
  const total = deferred.reduce((sum, group) => sum + group.tools, 0)
  const from = deferred.map((group) => `${group.name} (${group.tools})`).join(", ")
  return [
    `No deferred tool matches "${query}".`,
    `${total} tool${total === 1 ? " is" : "s are"} deferred, from: ${from}.`,
    'Try other words: the action and the thing it acts on ("list pull requests", "send slack message"), a synonym, or the name of the service.',
  ].join("\n")
}

function clip(text: string, max: number): string {
  if (max <= 0) return ""
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`
}
