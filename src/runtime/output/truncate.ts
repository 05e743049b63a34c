import type { OutputOwner } from "../../platform/store/outputs.ts"
import { cut } from "../../platform/text/cut.ts"
import { hint, type Pager } from "../../platform/text/hint.ts"
import type { Direction, Limits } from "../../platform/text/limits.ts"
import type { Signal } from "../../platform/text/signals.ts"
import type { OutputStore } from "./store.ts"

export interface TruncateOptions {
  limits: Limits
  /** Which end to keep; "head" unless the end of the output is what matters (a command's result). */
  direction?: Direction
  /** Where the full text goes; anything with OutputStore's `write` will do (a fake in tests, a remote store). */
  store: Pick<OutputStore, "write">
  /** The call the output came from: a shared store files the saved output under it. */
  owner?: OutputOwner
  /** The agent may hand the file to a subagent; changes the hint. */
  canDelegate?: boolean
  /**
   * The tool the agent reads files page by page with (asked only when the output is cut): the hint
   * names calls to it that fit its pages.
   */
  pager?: () => Pager | undefined
}

export type Truncated =
  | { truncated: false; content: string }
  | { truncated: true; content: string; outputPath: string; removed: number; unit: "lines" | "bytes" }

/**
 * Bounds a tool's output for the model.
 *
 * 1. Cut: decide the preview and collect error/summary lines from the part left out.
 * 2. If nothing was cut, return the text as is; nothing is written.
 * 3. Save the full text to the store before building the reply. If saving fails, this rejects: the
 *    caller must fail the call rather than show a preview that points at a file that does not exist.
 * 4. Assemble preview, what was removed, the kept signal lines and the hint, ordered so the preview
 *    sits at the end of the output it came from (first for head, last for tail).
 */
export async function truncate(text: string, options: TruncateOptions): Promise<Truncated> {
  const direction = options.direction ?? "head"
  const result = cut(text, { ...options.limits, direction })
  if (!result.truncated) return { truncated: false, content: text }
  const outputPath = await options.store.write(text, options.owner)
  const notice = `...${result.removed} ${result.unit} truncated...`
  const help = hint({
    outputPath,
    direction,
    canDelegate: options.canDelegate ?? false,
    firstCutLine: result.firstCutLine,
    lastCutLine: result.lastCutLine,
    pager: options.pager?.(),
    text,
  })
  const blocks =
    direction === "head"
      ? [result.preview, notice, signalBlock(result.signals), help]
      : [notice, signalBlock(result.signals), help, result.preview]
  const content = blocks.filter((block): block is string => block !== undefined).join("\n\n")
  return { truncated: true, content, outputPath, removed: result.removed, unit: result.unit }
}

function signalBlock(signals: readonly Signal[]): string | undefined {
  if (signals.length === 0) return undefined
  const lines = signals.map((signal) => `  line ${signal.line}: ${signal.text}`)
  return `Lines from the truncated part that look like errors or summaries:\n${lines.join("\n")}`
}
