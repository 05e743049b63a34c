// A worker thread that counts o200k_base tokens for a batch of texts (count.ts starts it): loading the
// tokenizer's ranks (~0.4 s) and counting happen here, so the event loop that serves clients runs on.
import { parentPort, workerData } from "node:worker_threads"
import { countTokens } from "gpt-tokenizer/encoding/o200k_base"

const texts = workerData as readonly string[]
parentPort!.postMessage(texts.map((text) => countTokens(text)))
