import { PER_MS, TIME_WRAP, timeSortable } from "../util/id.ts"

/** Every stored output is named `tool_<id>`; the store sweeps only names with this prefix. */
export const OUTPUT_PREFIX = "tool_"

/** Ids stamped slightly ahead of the reader's clock (clock steps, other processes) still decode as recent. */
const FUTURE_SLACK_MS = 24 * 60 * 60 * 1000
const NAME = /^tool_([0-9a-f]{12})[0-9A-Za-z]{14}/

/**
 * A new output id: time-sortable, in opencode's layout, so names sort by creation time and carry their
 * own age, which lets the sweeper decide without a stat call.
 */
export function newOutputId(now: number = Date.now()): string {
  return timeSortable(now)
}

/**
 * The creation time (ms) encoded in an output file name or id, or undefined if it is not one of ours.
 * The name keeps the clock modulo ~795 days (the price of opencode's 12-digit layout), so the time is
 * read as the latest one not after `now` (plus a day of slack) that matches: exact for anything younger
 * than two years, which the hourly sweep guarantees.
 */
export function timestampOf(name: string, now: number = Date.now()): number | undefined {
  const match = NAME.exec(name.startsWith(OUTPUT_PREFIX) ? name : OUTPUT_PREFIX + name)
  if (match === null) return undefined
  const wrapped = Math.floor(Number.parseInt(match[1]!, 16) / PER_MS)
  const latest = now + FUTURE_SLACK_MS
  return latest - ((((latest - wrapped) % TIME_WRAP) + TIME_WRAP) % TIME_WRAP)
}
