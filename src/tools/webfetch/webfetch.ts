import { z } from "zod"
import { compilePolicy } from "../../platform/net/address-policy.ts"
import { FetchError } from "../../platform/net/errors.ts"
import { parseHttpUrl } from "../../platform/net/guarded-fetch.ts"
import * as Tool from "../../runtime/tool/index.ts"
import { builtinSchema } from "../../runtime/tool/schema-source.ts"
import { services } from "../../runtime/tool/services.ts"
import { READS_THE_WEB } from "../kit/declarations.ts"
import { loadText } from "../kit/load-text.ts"
import type { convertPage } from "./convert.ts"
import type { fetchPage } from "./fetch-page.ts"
import { type CachedPage, cacheKey, PageCache } from "./page-cache.ts"
import { addressPolicy } from "./settings.ts"

export const DEFAULT_TIMEOUT_S = 30
export const MAX_TIMEOUT_S = 120

const parameters = builtinSchema("webfetch", () =>
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
type Parameters = Tool.SchemaOf<typeof parameters>

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

const pages = new PageCache()

/**
 * Fetches a URL through the address guard and returns it in the format asked for.
 * 1. The URL must be http(s); ask `webfetch` for it (an "always" remembers its origin, `https://host/*`).
 * 2. A page fetched in the last 15 minutes for the same format (and guard policy) is answered from the
 *    cache, unless the call asks to refresh.
 * 3. Fetch: browser headers, redirects re-checked by the guard, the body capped at 5 MB while it
 *    streams, the timeout (30 s, at most 120) and the call's abort both ending it.
 * 4. Convert (images attached, PDFs as text, HTML to markdown or text, other text as is), each bounded
 *    by what it produces (convert.ts): PDFs and a large page's markdown in a worker thread with bounded
 *    memory, terminated when the same timeout passes. Then shape the result: title
 *    `<url> (<content type>)`, metadata with the final URL, status, size, cache.
 */
export const WebfetchTool = Tool.define<Parameters, WebfetchMetadata>(
  "webfetch",
  () => ({
    description: loadText(import.meta.url, "description.txt"),
    parameters,
    async execute(params, ctx) {
      // 1. The URL, then permission (for the URL; "always" for its origin).
      const url = parsed(params.url)
      const timeoutS = Math.min(params.timeout ?? DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S)
      await ctx.ask({
        permission: "webfetch",
        patterns: [url.href],
        always: [`${url.origin}/*`],
        metadata: { url: url.href, format: params.format, timeout: timeoutS },
      })

      // 2. The cache.
      const { config, env } = services(ctx)
      const policy = addressPolicy(config)
      const key = cacheKey({ url: url.href, format: params.format, policy: compilePolicy(policy).key })
      const known = params.refresh ? undefined : pages.get(key)
      if (known) return answer(known, true)

      // 3. Fetch.
      const timeout = AbortSignal.timeout(timeoutS * 1000)
      const signal = AbortSignal.any([ctx.abort, timeout])
      // Fetching and converting are loaded at the first fetch, not at every start-up (see ARCHITECTURE.md).
      const [{ fetchPage }, { convertPage }] = await Promise.all([
        import("./fetch-page.ts"),
        import("./convert.ts"),
      ])
      let page: Awaited<ReturnType<typeof fetchPage>>
      try {
        page = await fetchPage({ url, format: params.format, policy, env, signal })
      } catch (error) {
        if (ctx.abort.aborted) throw error
        if (timeout.aborted)
          throw new Tool.ToolFailure(
            `Request timed out after ${timeoutS} s fetching ${url.href}. Try again with a longer timeout (at most ${MAX_TIMEOUT_S} s).`,
          )
        if (error instanceof FetchError) throw new Tool.ToolFailure(error.message)
        throw error
      }

      // 4. Convert and shape.
      let converted: Awaited<ReturnType<typeof convertPage>>
      try {
        converted = await convertPage(page, params.format, signal)
      } catch (error) {
        if (ctx.abort.aborted || !timeout.aborted) throw error
        throw new Tool.ToolFailure(
          `Timed out after ${timeoutS} s converting ${page.url.href} (${page.bytes.byteLength} bytes of ${page.contentType || "content"}); the conversion was stopped. Try again with a longer timeout (at most ${MAX_TIMEOUT_S} s), or with format "html" for the page as served.`,
        )
      }
      const contentType = page.contentType || converted.mime
      const result: CachedPage = {
        title: `${params.url} (${contentType})`,
        output: converted.output || emptyPage(page.url.href, converted.mime),
        metadata: {
          url: page.url.href,
          status: page.status,
          bytes: page.bytes.byteLength,
          contentType,
          redirects: page.redirects.length,
        },
        attachments: converted.attachments,
      }
      pages.set(key, result)
      return answer(result, false)
    },
  }),
  { annotations: READS_THE_WEB },
)

function parsed(raw: string): URL {
  try {
    return parseHttpUrl(raw.trim())
  } catch (error) {
    throw new Tool.ToolFailure((error as Error).message)
  }
}

function answer(page: CachedPage, cached: boolean): Tool.Result<WebfetchMetadata> {
  return {
    title: page.title,
    output: page.output,
    metadata: { ...(page.metadata as Omit<WebfetchMetadata, "cached">), cached } as WebfetchMetadata,
    attachments: page.attachments,
  }
}

function emptyPage(url: string, mime: string): string {
  const why =
    mime === "text/html" ? "; it may build its content with JavaScript, which webfetch does not run" : ""
  return `(${url} has no text content${why})`
}
