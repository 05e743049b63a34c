// Content mode's second pass: the lines (and context) of the few files shown, read with `rg --json`.
import { DEFAULT_TIMEOUT_MS, type GrepFile, type GrepLine, type GrepOptions } from "./backend.ts"
import type { Hit } from "./results.ts"
import { trimLines } from "./results.ts"
import { runRipgrep, splitter } from "./ripgrep-process.ts"

/** Files per `rg --json` run (keeps the command line short). */
const BATCH = 200
/** Reading the lines of the files shown gets at least this long, even after a timeout. */
const LINES_MS = 5_000

export interface ReadLinesOptions {
  /** The rg executable. */
  readonly binary: string
  /** The files to read, newest first, each with the number of matching lines it shows. */
  readonly plan: readonly { hit: Hit; quota: number }[]
  /** The flags the first pass matched with (`matchFlags`). */
  readonly matchFlags: readonly string[]
  readonly options: GrepOptions
}

interface RgText {
  readonly text?: string
  readonly bytes?: string
}

interface RgLineMessage {
  readonly type: "match" | "context"
  readonly data: { readonly path: RgText; readonly lines: RgText; readonly line_number: number }
}

/**
 * Reads the lines (and context) of the planned files with `rg --json`, batch by batch; `--max-count`
 * stops rg after the lines needed (it still prints the context after the last one). Each file keeps
 * exactly its quota of matches and their context.
 */
export async function readLines({
  binary,
  plan,
  matchFlags,
  options,
}: ReadLinesOptions): Promise<{ files: GrepFile[]; timedOut: boolean }> {
  const before = options.before ?? 0
  const after = options.after ?? 0
  const byPath = new Map<string, GrepLine[]>()
  let timedOut = false
  for (let start = 0; start < plan.length; start += BATCH) {
    const batch = plan.slice(start, start + BATCH)
    const args = [
      "--no-config",
      "--json",
      "--max-count",
      String(Math.max(...batch.map(({ quota }) => quota))),
      ...matchFlags,
      ...(before ? ["--before-context", String(before)] : []),
      ...(after ? ["--after-context", String(after)] : []),
      "--regexp",
      options.pattern,
      "--",
      ...batch.map(({ hit }) => hit.path),
    ]
    const run = await runRipgrep({
      binary,
      args,
      signal: options.signal,
      timeoutMs: Math.max(LINES_MS, options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      onData: splitter(10, (record) => {
        if (!record.startsWith('{"type":"match"') && !record.startsWith('{"type":"context"')) return
        const message = JSON.parse(record) as RgLineMessage
        const path = textOf(message.data.path)
        let list = byPath.get(path)
        if (!list) {
          list = []
          byPath.set(path, list)
        }
        list.push({
          line: message.data.line_number,
          text: textOf(message.data.lines)
            .replace(/\r?\n$/, "")
            .replace(/\r$/, ""),
          match: message.type === "match",
        })
      }),
    })
    timedOut ||= run.timedOut
  }
  const files: GrepFile[] = []
  for (const { hit, quota } of plan) {
    const lines = byPath.get(hit.path)
    if (!lines) continue
    lines.sort((a, b) => a.line - b.line)
    files.push({ ...hit, lines: trimLines(lines, quota, before, after) })
  }
  return { files, timedOut }
}

/** ripgrep's JSON text: UTF-8 as `text`, anything else as base64 `bytes` (decoded with replacement). */
function textOf(value: RgText): string {
  return value.text ?? Buffer.from(value.bytes ?? "", "base64").toString("utf8")
}
