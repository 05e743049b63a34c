// Who a process is, in a form another process can check later: a pid alone is not enough, because pids
// are reused after a process ends.

import { readFileSync } from "node:fs"

/** One process: its pid and its start time, which together name it for the whole uptime. */
export interface ProcessIdentity {
  readonly pid: number
  /**
   * The start time in clock ticks since boot (field 22 of /proc/<pid>/stat); "0" where /proc is not
   * available, which means unknown.
   */
  readonly start: string
}

const UNKNOWN_START = "0"

/** This process, read once. */
let self: ProcessIdentity | undefined

export function currentProcess(): ProcessIdentity {
  self ??= { pid: process.pid, start: procStat(process.pid)?.start ?? UNKNOWN_START }
  return self
}

/**
 * Whether the process `identity` names still runs.
 *
 * 1. `kill(pid, 0)`: ESRCH means no such pid (EPERM means one exists that we may not signal).
 * 2. Where /proc tells the pid's start time: a different start time means the pid was reused by another
 *    process; a zombie (killed, not yet reaped by its parent) counts as gone, since it can do nothing more.
 * Without /proc (macOS, Windows) a live pid counts as the same process: the safe side, since a reused pid
 * only makes a waiter wait (bounded) instead of taking what a live process holds.
 */
export function processAlive(identity: ProcessIdentity): boolean {
  try {
    process.kill(identity.pid, 0)
  } catch (error) {
    if ((error as { code?: string }).code === "ESRCH") return false
  }
  if (identity.start === UNKNOWN_START || currentProcess().start === UNKNOWN_START) return true
  const stat = procStat(identity.pid)
  if (!stat) return false
  return stat.start === identity.start && stat.state !== "Z" && stat.state !== "X"
}

/** The state letter and start time of a process from /proc/<pid>/stat, or undefined when unreadable. */
function procStat(pid: number): { state: string; start: string } | undefined {
  let text: string
  try {
    text = readFileSync(`/proc/${pid}/stat`, "latin1")
  } catch {
    return undefined
  }
  // The command name (field 2) is in parentheses and may hold spaces and parentheses itself: the fields
  // after it start past the last ")". There, field 3 (state) is index 0 and field 22 (starttime) index 19.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ")
  const state = fields[0]
  const start = fields[19]
  if (state === undefined || start === undefined || !/^\d+$/.test(start)) return undefined
  return { state, start }
}
