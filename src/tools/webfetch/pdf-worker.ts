// A worker thread that reads one PDF's text (pdf-off-thread.ts starts it): PDF.js's decoding runs
// under the worker's limits and the parent's watch, and its memory is given back when it ends.
import { parentPort, workerData } from "node:worker_threads"
import type { WorkerAnswer } from "./off-thread.ts"
import { type PdfText, pdfText } from "./pdf-text.ts"

/** What the worker is started with. */
export interface PdfJob {
  readonly bytes: Uint8Array
  readonly url: string
  readonly maxChars: number
}

const job = workerData as PdfJob
let answer: WorkerAnswer<PdfText>
try {
  answer = { value: await pdfText(job.bytes, job.maxChars) }
} catch (error) {
  answer = {
    failure: `Cannot read the PDF at ${job.url}: ${(error as Error).message}. It may be encrypted or damaged.`,
  }
}
parentPort!.postMessage(answer)
