import { countNewlines } from "./newlines.ts"
import { clipChars } from "./utf8.ts"

/** A line from the part of the output the model does not see, kept because it reads as an error or a summary. */
export interface Signal {
  /** 1-based line number in the full output, so the model can read around it. */
  readonly line: number
  readonly text: string
}

/** A run of whole lines: `start` is the first character of a line, `end` the "\n" (or end of text) after the last. */
export interface Region {
  readonly start: number
  readonly end: number
  /** Line number of the line at `start`. */
  readonly firstLine: number
}

export const SIGNAL_CAPS = { maxLines: 20, maxBytes: 4096, maxLineChars: 300 } as const

/**
 * Cheap first pass: every signal pattern below contains one of these words. A literal alternation scans
 * several times faster than the precise patterns with their boundaries, so the precise check runs only
 * on lines that pass this one.
 */
const CANDIDATE =
  /Error|Exception|error|ERR|FA[TI]|Traceback|fatal|panic|passed|failed|passing|failing|Test|Snapshots|test result|[✗✖×●]/g

/** Not at the end of a longer word; an ANSI colour code right before the word does not count as a letter. */
const START = String.raw`(?:(?<![A-Za-z0-9_])|(?<=\u001b\[[0-9;]*m))`
const END = "(?![A-Za-z0-9_])"

/**
 * Lines worth keeping: thrown errors (`Error: x`, `TypeError [CODE]: x`, `java.io.IOException: x`),
 * compiler errors (`error:`, `error[E0308]:`, `error TS2322:`), test runner verdicts (`FAIL`, `FAILED`,
 * `✗`, jest's `●`, vitest's `×`), crashes (`panic:`, `panicked`, `Traceback`, `fatal:`, `npm ERR!`) and the
 * summaries that say how a run ended (`3 passed, 1 failed`, `Tests:`, `test result:`).
 */
const SIGNAL = new RegExp(
  [
    String.raw`(?:Error|Exception)(?: \[[A-Z0-9_]+\])?:(?!\S)`,
    String.raw`${START}error(?:\[[A-Z]?\d+\]| TS\d+)?:`,
    `${START}(?:ERROR|FATAL|FAIL(?:ED|URE)?|Traceback|AssertionError|Exception)${END}`,
    `${START}(?:npm )?ERR!`,
    `${START}fatal:`,
    `${START}panic(?::|ked${END})`,
    String.raw`${START}\d+ (?:passed|failed|passing|failing)${END}`,
    String.raw`^[ \t]*(?:(?:Tests?|Test Suites|Test Files|Snapshots)(?::|[ \t]{2})|[×●][ \t])`,
    `${START}test result:`,
    "[✗✖]",
  ].join("|"),
  "m",
)

/** Stack frames repeat the error above them; one line per frame would crowd out the summary. */
const FRAME = /^[ \t]+(?:at |File ")/

// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC starts the colour codes being removed.
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]/g

/**
 * Finds the signal lines of `region`, keeping the last ones when there are more than the caps allow
 * (a run's summary comes at its end), returned in file order.
 *
 * 1. Jump between candidate words with one global regex over the original string (no per-line work).
 * 2. For each candidate, take its line, check it against the precise patterns, skip stack frames.
 * 3. Number the line by counting newlines since the previous candidate, so counting is one pass overall.
 * 4. Keep a window of the latest matches within the caps.
 */
export function findSignals(text: string, region: Region): Signal[] {
  const kept: Signal[] = []
  let keptBytes = 0
  let countedTo = region.start
  let line = region.firstLine
  const candidate = new RegExp(CANDIDATE.source, "g")
  candidate.lastIndex = region.start
  for (let hit = candidate.exec(text); hit !== null && hit.index < region.end; hit = candidate.exec(text)) {
    const lineStart = hit.index === 0 ? 0 : text.lastIndexOf("\n", hit.index - 1) + 1
    const newline = text.indexOf("\n", hit.index)
    const lineEnd = newline === -1 || newline > region.end ? region.end : newline
    candidate.lastIndex = lineEnd + 1
    const content = text.slice(lineStart, lineEnd)
    if (!SIGNAL.test(content) || FRAME.test(content)) continue
    line += countNewlines(text, countedTo, lineStart)
    countedTo = lineStart
    const shown = display(content)
    kept.push({ line, text: shown })
    keptBytes += Buffer.byteLength(shown)
    while (kept.length > SIGNAL_CAPS.maxLines || keptBytes > SIGNAL_CAPS.maxBytes) {
      keptBytes -= Buffer.byteLength(kept.shift()!.text)
    }
  }
  return kept
}

function display(line: string): string {
  const plain = line.replace(ANSI, "").trimEnd()
  const clipped = clipChars(plain, SIGNAL_CAPS.maxLineChars)
  return clipped.length < plain.length ? `${clipped}…` : clipped
}
