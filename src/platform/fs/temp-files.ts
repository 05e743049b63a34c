// The temp files of atomic writes, and what a writer killed mid-write leaves of them.
//
// A temp file is named `.<name>.<pid>-<start>-<random>.tmp`: the writer's identity is in the name, so
// anyone can tell a temp file of a dead writer from one still being written. When tracking is on (the
// runtime turns it on, `trackTempFiles`), each process also appends the path of every temp file it is
// about to create to its own in-flight list in the data dir, `<data>/temp-files/<host>/<pid>-<start>.list`,
// before creating it; the next start (`sweepDeadTemps`) removes what dead writers listed and left.

import { closeSync, ftruncateSync, openSync, readdirSync, rmSync, writeSync } from "node:fs"
import { lstat, mkdir, readFile, rm } from "node:fs/promises"
import { hostname } from "node:os"
import { basename, join } from "node:path"
import { randomBytes } from "../util/random.ts"
import { errorCode } from "./errors.ts"
import { currentProcess, processAlive } from "./process-identity.ts"

/** A list is emptied when no write is in flight and it has grown past this. */
const LIST_RESET_BYTES = 256 * 1024

interface Tracking {
  readonly dir: string
  readonly path: string
  fd: number | undefined
  inFlight: number
  bytes: number
}

let tracking: Tracking | undefined

/** A unique hidden name beside `target`, carrying this process's identity; long names are shortened. */
export function tempName(target: string): string {
  const name = basename(target)
  const short = Buffer.byteLength(name) > 128 ? name.slice(0, 32) : name
  const { pid, start } = currentProcess()
  return `.${short}.${pid}-${start}-${randomBytes(6).toString("hex")}.tmp`
}

/** The writer named in a temp file's name, or undefined when the name is not one of ours. */
export function tempWriter(path: string): { pid: number; start: string } | undefined {
  const match = /\.(\d+)-(\d+)-[0-9a-f]{12}\.tmp$/.exec(basename(path))
  return match ? { pid: Number(match[1]), start: match[2]! } : undefined
}

/**
 * Lists the temp files this process creates in `<dataDir>/temp-files/`, so the next start can remove
 * those a crash leaves. Idempotent; the first data dir given wins (the list belongs to the process).
 */
export function trackTempFiles(dataDir: string): void {
  if (tracking) return
  const { pid, start } = currentProcess()
  const dir = listDir(dataDir)
  tracking = { dir, path: join(dir, `${pid}-${start}.list`), fd: undefined, inFlight: 0, bytes: 0 }
}

/**
 * Called before a temp file is created: appends its path to this process's list (synchronously, so the
 * line is in the kernel before the file exists; a `kill -9` cannot lose it). A list that cannot be
 * written costs only the clean-up after a crash, never the write itself.
 */
export async function beginTemp(temp: string): Promise<void> {
  const list = tracking
  if (!list) return
  list.inFlight++
  try {
    if (list.fd === undefined) {
      await mkdir(list.dir, { recursive: true })
      if (list.fd === undefined) {
        list.fd = openSync(list.path, "a", 0o600)
        // A normal exit leaves no temp file behind (each write removes its own), so no list either.
        process.once("exit", () => {
          if (tracking === list && list.inFlight === 0) rmSync(list.path, { force: true })
        })
      }
    }
    const line = Buffer.from(`${temp}\n`)
    writeSync(list.fd, line)
    list.bytes += line.length
  } catch {
    // Best effort, see above.
  }
}

/** Called once the temp file is renamed or removed. An idle list that grew large is emptied. */
export function endTemp(): void {
  const list = tracking
  if (!list || list.inFlight === 0) return
  list.inFlight--
  if (list.inFlight > 0 || list.bytes < LIST_RESET_BYTES || list.fd === undefined) return
  try {
    ftruncateSync(list.fd, 0)
    list.bytes = 0
  } catch {
    // The list only grows; harmless.
  }
}

/**
 * Removes the temp files of writers that are gone.
 * 1. Each `<pid>-<start>.list` of this machine (`<dataDir>/temp-files/<host>/`) whose writer still runs
 *    is left alone.
 * 2. Every path in the list of a dead writer that still exists, is a regular file, and carries that
 *    writer's identity in its name is removed (so a list can never make us remove anything else).
 * 3. The list is removed.
 * Returns the temp files removed.
 */
export async function sweepDeadTemps(dataDir: string): Promise<string[]> {
  const dir = listDir(dataDir)
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch (error) {
    if (errorCode(error) === "ENOENT") return []
    throw error
  }
  const removed: string[] = []
  for (const name of names) {
    const match = /^(\d+)-(\d+)\.list$/.exec(name)
    if (!match) continue
    const writer = { pid: Number(match[1]), start: match[2]! }
    if (processAlive(writer)) continue
    const list = join(dir, name)
    const text = await readFile(list, "utf8").catch(() => "")
    for (const temp of new Set(text.split("\n"))) {
      const named = temp ? tempWriter(temp) : undefined
      if (!named || named.pid !== writer.pid || named.start !== writer.start) continue
      try {
        if (!(await lstat(temp)).isFile()) continue
        await rm(temp)
        removed.push(temp)
      } catch {
        // Already gone (renamed into place, or removed by its writer before it died).
      }
    }
    await rm(list, { force: true })
  }
  return removed
}

/** Lists are per machine: whether a writer still runs can only be told on its own machine. */
function listDir(dataDir: string): string {
  return join(dataDir, "temp-files", hostname())
}

/** For tests: stops tracking and closes this process's list. */
export function stopTrackingTempFiles(): void {
  if (tracking?.fd !== undefined) closeSync(tracking.fd)
  tracking = undefined
}
