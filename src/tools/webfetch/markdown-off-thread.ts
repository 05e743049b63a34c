import { Worker } from "node:worker_threads"
import * as Tool from "../../runtime/tool/index.ts"
import type { MarkdownJob } from "./markdown-worker.ts"

/**
 * The worker's heap limits. A small young generation makes it collect turndown's short-lived garbage
 * early instead of growing to V8's default (up to ~200 MB under this load); the old generation's cap
 * turns a page that would need more than that into a ToolFailure instead of a process out of memory.
 */
export const WORKER_LIMITS = { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 512 }

/**
 * htmlToMarkdown in a worker thread of its own, for large pages: the conversion's memory is bounded
 * by the worker's limits and returned when it ends, and the event loop (an MCP or HTTP server's)
 * keeps running meanwhile. The call's abort ends the worker.
 */
export function htmlToMarkdownOffThread(input: {
  html: string
  pageUrl: URL
  signal?: AbortSignal
  limits?: typeof WORKER_LIMITS
}): Promise<string> {
  const { html, pageUrl, signal, limits = WORKER_LIMITS } = input
  if (signal?.aborted) return Promise.reject(signal.reason)
  const extension = import.meta.url.endsWith(".ts") ? ".ts" : ".js"
  const job: MarkdownJob = { html, url: pageUrl.href }
  const worker = new Worker(new URL(`./markdown-worker${extension}`, import.meta.url), {
    workerData: job,
    resourceLimits: limits,
  })
  return new Promise<string>((resolve, reject) => {
    let settled = false
    const settle = (outcome: () => void) => {
      if (settled) return
      settled = true
      signal?.removeEventListener("abort", abort)
      outcome()
    }
    const abort = () => {
      void worker.terminate()
      settle(() => reject(signal!.reason))
    }
    signal?.addEventListener("abort", abort, { once: true })
    worker.once("message", (markdown: string) => settle(() => resolve(markdown)))
    worker.once("error", (error: Error & { code?: string }) =>
      settle(() =>
        reject(
          error.code === "ERR_WORKER_OUT_OF_MEMORY"
            ? new Tool.ToolFailure(
                `Converting ${pageUrl.href} (${megabytes(html.length)} of HTML) to markdown needs more than ${limits.maxOldGenerationSizeMb} MB of memory. Fetch it with format "text" (read as it streams) or "html" instead.`,
              )
            : error,
        ),
      ),
    )
    worker.once("exit", (code) =>
      settle(() => reject(new Error(`the markdown worker exited (code ${code}) without an answer`))),
    )
  })
}

function megabytes(chars: number): string {
  return `${(chars / 1_000_000).toFixed(1)} MB`
}
