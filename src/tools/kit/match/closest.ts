/**
 * For a not-found edit: the region of the file most like oldString, and how the two differ, so the model
 * can correct its string without reading the whole file again.
 */
import { indentOf, isBlank } from "./reindent.ts"
import { similarity } from "./similarity.ts"

export interface ClosestRegion {
  /** 0-based index of the region's first line in the file. */
  readonly first: number
  /** How many lines the region has (oldString's line count, or the file's if it is shorter). */
  readonly count: number
  /** Mean similarity of corresponding lines, 0..1 (pairs of blank lines do not count). */
  readonly similarity: number
}

export interface ClosestInput {
  /** The file's lines (LF). */
  readonly fileLines: readonly string[]
  /** oldString's lines. */
  readonly findLines: readonly string[]
  /** The file's lines trimmed, when the caller already has them (computed otherwise). */
  readonly trimmed?: readonly string[]
}

/** The most distinctive lines of oldString used to place windows (the longest ones). */
const PROBES = 16
/** Probes also compared fuzzily (bigrams) when too few lines are found as they are. */
const FUZZY_PROBES = 8
/** A line that occurs more often than this says nothing about where oldString belongs. */
const COMMON_LINE = 1000
/** Windows scored line by line after voting (ties are common: a line that occurs in many places). */
const FINALISTS = 64

/**
 * The window of oldString's line count whose lines are most like oldString's, or undefined when no line
 * of the file resembles any line of oldString.
 *
 * Cost is bounded for big files: up to 16 distinctive lines of oldString vote for the window starts
 * where they occur (lines equal once trimmed; a line found in more than 1,000 places does not vote);
 * only when fewer than half of them are in the file does a second pass compare up to 8 of them with
 * every file line by bigrams (linear in the file). The best 64 windows are then scored pair by pair
 * with Levenshtein similarity.
 */
export function findClosestRegion(input: ClosestInput): ClosestRegion | undefined {
  const { fileLines, findLines } = input
  const trimmed = input.trimmed ?? fileLines.map((line) => line.trim())
  const n = fileLines.length
  const m = findLines.length
  const count = Math.min(m, n)
  if (count === 0) return undefined
  const probes = findLines
    .map((line, index) => ({ index, text: line.trim() }))
    .filter((probe) => probe.text !== "")
    .sort((a, b) => b.text.length - a.text.length)
    .slice(0, PROBES)
  if (probes.length === 0) return undefined

  // votes[start + m] for window starts from -m + 1 to n - 1.
  const votes = new Float64Array(n + m)
  let found = 0
  for (const probe of probes) {
    const hits: number[] = []
    for (let j = 0; j < n && hits.length <= COMMON_LINE; j++) if (trimmed[j] === probe.text) hits.push(j)
    if (hits.length === 0) continue
    found++
    if (hits.length > COMMON_LINE) continue
    for (const j of hits) votes[j - probe.index + m]! += 1
  }
  if (found * 2 < probes.length) {
    let stamp = 0
    for (const { index, text: line } of probes.slice(0, FUZZY_PROBES)) {
      const probe = probeOf(line)
      const used = new Uint16Array(probe.counts.length)
      const stamps = new Uint32Array(probe.counts.length)
      for (let j = 0; j < n; j++) {
        const text = trimmed[j]!
        if (text === "" || text === line || text.length * 2 < line.length || text.length > line.length * 2)
          continue
        const score = sharedBigrams(probe, text, used, stamps, ++stamp)
        if (score >= 0.5) votes[j - index + m]! += score
      }
    }
  }

  let best: ClosestRegion | undefined
  for (const first of topStarts(votes, m, n - count)) {
    const score = windowSimilarity(trimmed, first, findLines)
    if (!best || score > best.similarity) best = { first, count, similarity: score }
  }
  return best
}

/** The distinct window starts (clamped to the file) of the highest votes, best first, at most FINALISTS. */
function topStarts(votes: Float64Array, m: number, lastStart: number): number[] {
  // One pass keeping the best few raw indices; clamping can merge some, so keep a margin.
  const keep = FINALISTS * 4
  const top: number[] = []
  for (let index = 0; index < votes.length; index++) {
    const vote = votes[index]!
    if (vote <= 0) continue
    if (top.length === keep && vote <= votes[top[keep - 1]!]!) continue
    let at = top.length === keep ? keep - 1 : top.length
    while (at > 0 && votes[top[at - 1]!]! < vote) {
      if (at < keep) top[at] = top[at - 1]!
      at--
    }
    top[at] = index
  }
  const starts = new Set<number>()
  for (const index of top) {
    starts.add(Math.min(Math.max(index - m, 0), lastStart))
    if (starts.size >= FINALISTS) break
  }
  return [...starts]
}

/** A probe line's character pairs: each distinct pair's slot, and how often it occurs. */
interface Probe {
  readonly slots: Map<number, number>
  readonly counts: Uint16Array
  readonly length: number
}

function probeOf(text: string): Probe {
  const slots = new Map<number, number>()
  const counts: number[] = []
  for (let i = 0; i + 1 < text.length; i++) {
    const code = text.charCodeAt(i) * 65536 + text.charCodeAt(i + 1)
    const slot = slots.get(code)
    if (slot === undefined) {
      slots.set(code, counts.length)
      counts.push(1)
    } else counts[slot]!++
  }
  return { slots, counts: Uint16Array.from(counts), length: text.length }
}

/**
 * Dice coefficient of `text`'s character pairs against a probe's (a pair the probe has twice counts at
 * most twice). Allocates nothing per line: `used` holds, per probe slot, how many of that pair this
 * line has taken, valid while `stamp` matches the line's generation.
 */
function sharedBigrams(
  probe: Probe,
  text: string,
  used: Uint16Array,
  stamps: Uint32Array,
  stamp: number,
): number {
  const total = text.length - 1 + (probe.length - 1)
  if (total <= 0) return 0
  let shared = 0
  for (let i = 0; i + 1 < text.length; i++) {
    const slot = probe.slots.get(text.charCodeAt(i) * 65536 + text.charCodeAt(i + 1))
    if (slot === undefined) continue
    if (stamps[slot] !== stamp) {
      stamps[slot] = stamp
      used[slot] = 0
    }
    if (used[slot]! < probe.counts[slot]!) {
      used[slot]!++
      shared++
    }
  }
  return (2 * shared) / total
}

function windowSimilarity(trimmed: readonly string[], first: number, findLines: readonly string[]): number {
  let sum = 0
  let pairs = 0
  for (let k = 0; k < findLines.length && first + k < trimmed.length; k++) {
    const a = findLines[k]!.trim()
    const b = trimmed[first + k]!
    if (a === "" && b === "") continue
    sum += similarity(a, b)
    pairs++
  }
  return pairs === 0 ? 1 : sum / pairs
}

export interface DiffLine {
  /** " " in both, "-" only in the first (oldString), "+" only in the second (the file). */
  readonly op: " " | "-" | "+"
  readonly text: string
  /** 0-based index in the second list, for " " and "+" lines. */
  readonly index?: number
}

/** Lines compared by a longest common subsequence, at most this many from each side. */
const DIFF_MAX_LINES = 400

/** A line diff of `a` against `b` (longest common subsequence of equal lines). */
export function lineDiff(a: readonly string[], b: readonly string[]): DiffLine[] {
  const left = a.slice(0, DIFF_MAX_LINES)
  const right = b.slice(0, DIFF_MAX_LINES)
  const width = right.length + 1
  // lengths[i * width + j]: LCS length of left[i..] and right[j..].
  const lengths = new Uint16Array((left.length + 1) * width)
  for (let i = left.length - 1; i >= 0; i--) {
    for (let j = right.length - 1; j >= 0; j--) {
      lengths[i * width + j] =
        left[i] === right[j]
          ? lengths[(i + 1) * width + j + 1]! + 1
          : Math.max(lengths[(i + 1) * width + j]!, lengths[i * width + j + 1]!)
    }
  }
  const out: DiffLine[] = []
  let i = 0
  let j = 0
  while (i < left.length || j < right.length) {
    if (i < left.length && j < right.length && left[i] === right[j]) {
      out.push({ op: " ", text: right[j]!, index: j })
      i++
      j++
    } else if (
      i < left.length &&
      (j === right.length || lengths[(i + 1) * width + j]! >= lengths[i * width + j + 1]!)
    ) {
      out.push({ op: "-", text: left[i]! })
      i++
    } else {
      out.push({ op: "+", text: right[j]!, index: j })
      j++
    }
  }
  return out
}

/** Regions up to this many lines show every line of the diff; longer ones show changes with context. */
const FULL_DIFF_LINES = 20
const CONTEXT = 2
const MAX_SHOWN = 60

/**
 * The hint appended to the not-found error: the closest region's line numbers and similarity, and a
 * line diff between oldString and it, numbered with the file's lines. Regions less than 30% similar are
 * not worth showing; the hint then says so.
 */
export function describeClosest(input: ClosestInput): string {
  const { fileLines, findLines } = input
  const region = findClosestRegion(input)
  if (!region || region.similarity < 0.3) {
    return "No region of the file resembles oldString; read the file to see its current content."
  }
  const regionLines = fileLines.slice(region.first, region.first + region.count)
  const diff = lineDiff(findLines, regionLines)
  const last = region.first + region.count
  const numberWidth = String(last).length
  const render = (line: DiffLine) => {
    const number = line.index === undefined ? "" : String(region.first + line.index + 1)
    return `${number.padStart(numberWidth)} ${line.op} ${line.text}`
  }
  const shown: string[] = []
  const changed = diff.map((line) => line.op !== " ")
  const keep = (k: number) => {
    if (diff.length <= FULL_DIFF_LINES) return true
    for (let d = -CONTEXT; d <= CONTEXT; d++) if (changed[k + d]) return true
    return false
  }
  let skipped = false
  for (let k = 0; k < diff.length; k++) {
    if (!keep(k)) {
      if (!skipped) shown.push(`${" ".repeat(numberWidth)}   ...`)
      skipped = true
      continue
    }
    skipped = false
    shown.push(render(diff[k]!))
  }
  const cut = shown.length > MAX_SHOWN ? shown.length - MAX_SHOWN : 0
  const body = cut > 0 ? [...shown.slice(0, MAX_SHOWN), `(${cut} more diff lines not shown)`] : shown
  const range = region.count === 1 ? `line ${region.first + 1}` : `lines ${region.first + 1}-${last}`
  const percent = Math.floor(region.similarity * 100)
  const header = `The closest region of the file is ${range} (${percent}% similar). How oldString differs from it ("-" only in oldString, "+" only in the file, numbers are file lines):`
  const note = whitespaceNote(diff)
  return [header, ...body, ...(note ? [note] : [])].join("\n")
}

/** When removed and added lines differ only in whitespace, says so (tabs and spaces look alike). */
function whitespaceNote(diff: readonly DiffLine[]): string | undefined {
  const removed = diff.filter((line) => line.op === "-").map((line) => line.text)
  const added = diff.filter((line) => line.op === "+").map((line) => line.text)
  const trimmedAdded = new Set(added.map((line) => line.trim()))
  const alike = removed.filter((line) => !isBlank(line) && trimmedAdded.has(line.trim()))
  if (alike.length === 0) return undefined
  const fileTabs = added.some((line) => indentOf(line).includes("\t"))
  const oldTabs = removed.some((line) => indentOf(line).includes("\t"))
  const style =
    fileTabs && !oldTabs
      ? " (the file indents with tabs, oldString with spaces)"
      : oldTabs && !fileTabs
        ? " (the file indents with spaces, oldString with tabs)"
        : ""
  return `${alike.length} line${alike.length === 1 ? "" : "s"} differ only in whitespace${style}.`
}
