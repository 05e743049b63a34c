// The webfetch tool's parameters and what it answers with, shared by its declaration (webfetch.ts) and
// its work (execute.ts).
import { z } from "zod"
import type * as Tool from "../../runtime/tool/index.ts"
import { builtinSchema } from "../../runtime/tool/schema-source.ts"

export const DEFAULT_TIMEOUT_S = 30
export const MAX_TIMEOUT_S = 120

export const parameters = builtinSchema("webfetch", () =>
  z.object({
    url: z.string().describe("The URL to fetch content from (http:// or https://)"),
    format: z
      .enum(["markdown", "text", "html"])
      .default("markdown")
      .describe("The format to return the content in: markdown (default), text, or html"),
    timeout: z
      .number()
      .positive()
      .optional()
      .describe(`Optional timeout in seconds (default ${DEFAULT_TIMEOUT_S}, at most ${MAX_TIMEOUT_S})`),
    refresh: z
      .boolean()
      .optional()
      .describe("Fetch the URL again even if it was fetched in the last 15 minutes (default false)"),
  }),
)
export type Parameters = Tool.SchemaOf<typeof parameters>

export interface WebfetchMetadata extends Record<string, unknown> {
  /** The URL the content came from, after redirects. */
  url: string
  status: number
  /** The body's size, decompressed. */
  bytes: number
  contentType: string
  /** How many redirects led there. */
  redirects: number
  /** Whether the page came from the 15-minute cache instead of the network. */
  cached: boolean
}
