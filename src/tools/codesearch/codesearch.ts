import { z } from "zod"
import * as Tool from "../../runtime/tool/index.ts"
import { builtinSchema } from "../../runtime/tool/schema-source.ts"
import { READS_THE_WEB } from "../kit/declarations.ts"
import { loadText } from "../kit/load-text.ts"
import { exaUrl } from "../kit/search/exa.ts"
import { callMcpText } from "../kit/search/mcp-call.ts"
import { configuredProvider, offeredWhenConfigured, runSearch } from "../kit/search/run-search.ts"
import { codesearchSettings } from "../kit/search/settings.ts"

export const DEFAULT_TOKENS = 5000

const parameters = builtinSchema("codesearch", () =>
  z.object({
    query: z
      .string()
      .min(1)
      .describe(
        "What to find code and documentation for, e.g. 'React useState hook examples', 'Rust tokio select'",
      ),
    tokensNum: z
      .number()
      .int()
      .min(1000)
      .max(50000)
      .default(DEFAULT_TOKENS)
      .describe(`How many tokens of context to return (1000 to 50000, default ${DEFAULT_TOKENS})`),
  }),
)
type Parameters = Tool.SchemaOf<typeof parameters>

export const NO_CODE =
  "No code snippets or documentation found. Please try a different query, be more specific about the library or programming concept, or check the spelling of framework names."

const LABEL = "Exa Code Search"

/**
 * Finds code and documentation on the web through Exa's code-context tool (`get_code_context_exa`);
 * offered only when Exa is configured for it (see `codesearchSettings`).
 * 1. The provider (Exa) from config and environment.
 * 2. Show `Exa Code Search "<query>"`, then ask `codesearch` for the query (always `*`).
 * 3. Call Exa within the timeout (25 s by default) and the call's abort.
 * 4. Exa's text, or a note that nothing was found; title `Code search: <query>`.
 */
export const CodesearchTool = Tool.define<Parameters, { provider: string; found: boolean }>(
  "codesearch",
  () => ({
    description: loadText(import.meta.url, "description.txt"),
    parameters,
    async execute(params, ctx) {
      // 1. The provider.
      const settings = configuredProvider(codesearchSettings, ctx)

      // 2. Permission.
      ctx.metadata({ title: `${LABEL} "${params.query}"` })
      await ctx.ask({
        permission: "codesearch",
        patterns: [params.query],
        always: ["*"],
        metadata: { query: params.query, tokensNum: params.tokensNum },
      })

      // 3. Search.
      const text = await runSearch({
        settings,
        ctx,
        label: LABEL,
        work: (call) =>
          callMcpText({
            call,
            url: exaUrl(call),
            tool: "get_code_context_exa",
            args: { query: params.query, tokensNum: params.tokensNum },
          }),
      })

      // 4. Shape.
      const found = Boolean(text?.trim())
      return {
        title: `Code search: ${params.query}`,
        output: found ? text!.trim() : NO_CODE,
        metadata: { provider: settings.provider, found },
      }
    },
  }),
  { annotations: READS_THE_WEB, available: offeredWhenConfigured(codesearchSettings) },
)
