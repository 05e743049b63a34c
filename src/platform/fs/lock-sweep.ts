// What dead holders leave in the lock directory. A holder killed with `kill -9` leaves its lock file until
// the next writer of that file takes it over; a file never written again (a temp project, a renamed
// file) would keep it forever, one small file each, so each process looks through the directory once.

import { unlinkSync } from "node:fs"
import { readdir } from "node:fs/promises"
import { join } from "node:path"
import { holderRunning, lockDirectory, readHolder, removeStale } from "./process-lock.ts"

/** Only entries left this long ago are looked at: a fresh one belongs to a lock being taken or waited on. */
export const SWEEP_AGE_MS = 60_000

/** Entries looked at between two turns of the event loop, so a large directory never stalls a call. */
const BATCH = 64

const swept = new Set<string>()

/**
 * Sweeps `dir` in the background, once per process (the first time a lock there is released). Best
 * effort: a process that exits first leaves the rest to the next one.
 */
export function sweepOnce(dir = lockDirectory()): void {
  if (swept.has(dir)) return
  swept.add(dir)
  setTimeout(() => void sweepStaleLocks(dir).catch(() => {}), 0).unref()
}

/**
 * Removes the entries of dead holders older than `SWEEP_AGE_MS`; returns how many.
 *
 * 1. A lock file (`<hash>.lock`) or a claim on one (`<hash>.lock.claim-<nonce>`) whose holder no longer
 *    runs is removed the way a waiter removes it (`removeStale`), so a sweep can never remove a lock a live
 *    process has just taken in its place.
 * 2. The identity file of a lock being created (`<hash>.lock.<nonce>.new`, linked into place and then
 *    removed at once) whose writer no longer runs is removed: no one else ever uses that name.
 * Entries whose content names no holder are left alone.
 */
export async function sweepStaleLocks(dir: string, now = Date.now()): Promise<number> {
  let names: string[]
  try {
    names = await readdir(dir)
  } catch {
    return 0
  }
  let removed = 0
  for (const [index, name] of names.entries()) {
    if (index % BATCH === BATCH - 1) await new Promise((resolve) => setImmediate(resolve))
    try {
      if (sweepEntry(join(dir, name), now)) removed++
    } catch {
      // Unreadable, or gone meanwhile: not ours to judge.
    }
  }
  return removed
}

/** Removes one entry when its holder is gone and it is old enough; true when removed. */
function sweepEntry(path: string, now: number): boolean {
  const holder = readHolder(path)
  if (typeof holder !== "object" || now - holder.since < SWEEP_AGE_MS || holderRunning(holder)) return false
  if (!path.endsWith(".new")) return removeStale(path, holder) && readHolder(path) === "missing"
  unlinkSync(path)
  return true
}
