// A worker thread that converts one large page to markdown (markdown-off-thread.ts starts it): its
// heap has its own limits and is given back when it ends.
import { parentPort, workerData } from "node:worker_threads"
import { htmlToMarkdown } from "./html-to-markdown.ts"
import { NestedTooDeep, tooDeepMessage } from "./nesting.ts"
import type { WorkerAnswer } from "./off-thread.ts"

/** What the worker is started with. */
export interface MarkdownJob {
  readonly html: string
  readonly url: string
}

const job = workerData as MarkdownJob
let answer: WorkerAnswer<string>
try {
  answer = { value: await htmlToMarkdown(job.html, new URL(job.url)) }
} catch (error) {
  if (!(error instanceof NestedTooDeep)) throw error
  answer = { failure: tooDeepMessage(job.url, "markdown") }
}
parentPort!.postMessage(answer)
