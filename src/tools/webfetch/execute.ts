// The webfetch tool's work (webfetch.ts declares the tool): the page cache, permission, fetching and
// converting. Loaded at the first fetch.
import type { z } from "zod"
import { compilePolicy } from "../../platform/net/address-policy.ts"
import { FetchError } from "../../platform/net/errors.ts"
import { parseHttpUrl } from "../../platform/net/guarded-fetch.ts"
import * as Tool from "../../runtime/tool/index.ts"
import { services } from "../../runtime/tool/services.ts"
import { type CachedPage, cacheKey, PageCache } from "./page-cache.ts"
import { DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S, type Parameters, type WebfetchMetadata } from "./params.ts"
import { addressPolicy } from "./settings.ts"

const pages = new PageCache()

export async function execute(
  params: z.output<Parameters>,
  ctx: Tool.Context,
): Promise<Tool.Result<WebfetchMetadata>> {
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
}

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
