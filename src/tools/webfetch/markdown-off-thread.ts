import type { MarkdownJob } from "./markdown-worker.ts"
import { type HeapLimits, runOffThread } from "./off-thread.ts"

/**
 * The worker's heap limits. A small young generation makes it collect turndown's short-lived garbage
 * early instead of growing to V8's default (up to ~200 MB under this load); the old generation's cap
 * turns a page that would need more than that into a ToolFailure instead of a process out of memory.
 */
export const WORKER_LIMITS: HeapLimits = { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 512 }

/**
 * htmlToMarkdown in a worker thread of its own, for large pages: the conversion's memory is bounded
 * by the worker's limits and returned when it ends, and the event loop (an MCP or HTTP server's)
 * keeps running meanwhile. The signal (the call's timeout and abort) terminates the worker.
 */
export function htmlToMarkdownOffThread(input: {
  html: string
  pageUrl: URL
  signal?: AbortSignal
  limits?: HeapLimits
}): Promise<string> {
  const { html, pageUrl, signal, limits = WORKER_LIMITS } = input
  const extension = import.meta.url.endsWith(".ts") ? ".ts" : ".js"
  const job: MarkdownJob = { html, url: pageUrl.href }
  return runOffThread<string>({
    script: new URL(`./markdown-worker${extension}`, import.meta.url),
    data: job,
    limits,
    ...(signal ? { signal } : {}),
    outOfMemory: () =>
      `Converting ${pageUrl.href} (${megabytes(html.length)} of HTML) to markdown needs more than ${limits.maxOldGenerationSizeMb} MB of memory. Fetch it with format "text" (read as it streams) or "html" instead.`,
  })
}

function megabytes(chars: number): string {
  return `${(chars / 1_000_000).toFixed(1)} MB`
}
