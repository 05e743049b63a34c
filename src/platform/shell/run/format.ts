import { type Pager, readRest } from "../../text/hint.ts"
import type { Signal } from "../../text/signals.ts"

/** A bounded piece of output, from a finished command or from a job's log. */
export interface Bounded {
  readonly text: string
  readonly truncated: boolean
  readonly outputPath?: string
  readonly saveError?: string
  readonly totalLines: number
  readonly keptLines: number
  readonly totalBytes: number
  readonly signals: readonly Signal[]
  /** The line number in the file of the first line of this output (a job's log read from the middle). */
  readonly firstLine?: number
}

/**
 * The text the model reads for bounded output: the tail, and when it was cut, a header in opencode's
 * words (`...output truncated...` / `Full output saved to: <file>`) that says how much is shown, the calls
 * that read the rest (to `pager`, the tool that reads files page by page, within its page limits), and
 * the error and summary lines from the part that was cut.
 */
export function formatBounded(
  output: Bounded,
  options: { empty?: string; pager?: () => Pager | undefined } = {},
): string {
  const body = output.text.endsWith("\n") ? output.text.slice(0, -1) : output.text
  if (!output.truncated) return body === "" ? (options.empty ?? "(no output)") : body
  const first = output.firstLine ?? 1
  const cutLines = Math.max(0, output.totalLines - output.keptLines)
  const lastCut = first + cutLines - 1
  const header = ["...output truncated..."]
  // One line alone can be longer than the limits (a minified bundle, a progress bar without newlines):
  // then the end of that line is what is shown, and saying "the last 0 lines" would hide that.
  const shown =
    output.keptLines === 0 && body !== ""
      ? `the end of line ${lastCut}, the last ${formatBytes(Buffer.byteLength(body))} of it (a single line too long to show whole)`
      : `the last ${output.keptLines} of ${output.totalLines} lines`
  if (output.outputPath) {
    header.push(
      `Full output saved to: ${output.outputPath}\n` +
        `Shown: ${shown} (${formatBytes(output.totalBytes)} in all). ` +
        (cutLines > 0
          ? `Search that file for what you need, or ${readRest({ pager: options.pager?.(), path: output.outputPath, from: first, to: lastCut })}`
          : "Search that file for what you need."),
    )
  } else {
    header.push(
      `The full output could not be saved${output.saveError ? ` (${output.saveError})` : ""}; ` +
        `shown: ${shown}.`,
    )
  }
  if (output.signals.length) {
    header.push(
      "Lines from the truncated part that look like errors or summaries:\n" +
        output.signals.map((signal) => `  line ${signal.line}: ${signal.text}`).join("\n"),
    )
  }
  return `${header.join("\n\n")}\n\n${body}`
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MB`
  return `${(bytes / 1024 / 1024 / 1024).toFixed(2)} GB`
}

/** `1234 sleep 100, 1240 node server.js` (at most `max`, then "and N more"). */
export function formatProcesses(list: readonly { pid: number; command: string }[], max = 5): string {
  const shown = list.slice(0, max).map((info) => `${info.pid} ${info.command || "?"}`.trim())
  return list.length > max ? `${shown.join(", ")} and ${list.length - max} more` : shown.join(", ")
}
