import { z } from "zod"
import * as Tool from "../../runtime/tool/index.ts"
import { builtinSchema } from "../../runtime/tool/schema-source.ts"
import { READS_THE_WEB } from "../kit/declarations.ts"
import { loadText } from "../kit/load-text.ts"
import { providers } from "../kit/search/providers.ts"
import { configuredProvider, offeredWhenConfigured, runSearch } from "../kit/search/run-search.ts"
import { websearchSettings } from "../kit/search/settings.ts"
import { formatAnswer } from "./format-results.ts"

export const DEFAULT_RESULTS = 8

const parameters = builtinSchema("websearch", () =>
  z.object({
    query: z.string().min(1).describe("The web search query"),
    numResults: z
      .number()
      .int()
      .positive()
      .default(DEFAULT_RESULTS)
      .describe(`Number of search results to return (default ${DEFAULT_RESULTS})`),
    livecrawl: z
      .enum(["fallback", "preferred"])
      .optional()
      .describe(
        "Live crawling (Exa): 'fallback' crawls when cached content is missing (default), 'preferred' crawls first",
      ),
    type: z
      .enum(["auto", "fast", "deep"])
      .optional()
      .describe("Search type: 'auto' (default), 'fast' for a quick answer, 'deep' for a thorough search"),
    contextMaxCharacters: z
      .number()
      .int()
      .positive()
      .optional()
      .describe("The most characters of page context the provider returns (Exa)"),
  }),
)
type Parameters = Tool.SchemaOf<typeof parameters>

export interface WebsearchMetadata extends Record<string, unknown> {
  provider: string
  /** Results listed (1 for a provider's own text). */
  results: number
}

const DESCRIPTION = loadText(import.meta.url, "description.txt")

/**
 * Searches the web with the configured provider (Exa, Parallel, Tavily, Brave or SearXNG); offered only
 * when one is configured (see `websearchSettings`), otherwise `toolbelt tools` says what to set.
 * 1. The provider from config and environment (none: a ToolFailure saying what to set).
 * 2. Show `<Label> "<query>"` as the call's title, then ask `websearch` for the query (always `*`).
 * 3. Search within the timeout (25 s by default) and the call's abort.
 * 4. A numbered list of results, or the provider's own text; title `<Label>: <query>`.
 */
export const WebsearchTool = Tool.define<Parameters, WebsearchMetadata>(
  "websearch",
  () => ({
    // The date the model reads is the day the tool was prepared for it.
    description: DESCRIPTION.replace("{{date}}", new Date().toISOString().slice(0, 10)),
    parameters,
    async execute(params, ctx) {
      // 1. The provider.
      const settings = configuredProvider(websearchSettings, ctx)
      const provider = providers[settings.provider]

      // 2. Permission.
      ctx.metadata({ title: `${provider.label} "${params.query}"` })
      await ctx.ask({
        permission: "websearch",
        patterns: [params.query],
        always: ["*"],
        metadata: { query: params.query, provider: settings.provider },
      })

      // 3. Search.
      const answer = await runSearch({
        settings,
        ctx,
        label: provider.label,
        work: (call) => provider.search(params, call),
      })

      // 4. Shape.
      const { output, results } = formatAnswer(answer)
      return {
        title: `${provider.label}: ${params.query}`,
        output,
        metadata: { provider: settings.provider, results },
      }
    },
  }),
  { annotations: READS_THE_WEB, available: offeredWhenConfigured(websearchSettings) },
)
