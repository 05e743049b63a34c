// Recovery records of multi-file changes: what lets the next start undo a change a crash cut in half.
//
// Each file write is atomic, but a change that spans files is not: `kill -9` between two renames
// leaves some files new and the rest old. Before its first rename, a change writes a record of the
// original of every path it will touch (or the fact that the path did not exist) into the data dir,
// `<data>/recovery/<project key>/<pid>-<start>-<random>.rec`, synced; it removes the record once the
// last file is in place. A record left behind by a writer that is gone means the change was
// interrupted: the next start on that project rolls it back.
//
// A record file: the line `toolbelt-recovery 1 <header bytes>\n`, the header (JSON: the writer, the
// time, one entry per path with the hashes of everything the change writes there), then the
// original bytes of every file that existed, one after another.

import { readdirSync } from "node:fs"
import { type FileHandle, mkdir, open, readFile, rename, rm, rmdir, stat } from "node:fs/promises"
import { hostname } from "node:os"
import { join } from "node:path"
import { randomBytes } from "../util/random.ts"
import { createSha256 } from "../util/sha256.ts"
import { syncDirectory, writeFileAtomic } from "./atomic-write.ts"
import { errorCode } from "./errors.ts"
import { currentProcess, type ProcessIdentity, processAlive } from "./process-identity.ts"

/** One path of a change, as it was before the change and as the change will leave it. */
export interface ChangeEntry {
  readonly path: string
  readonly original:
    | { readonly exists: true; readonly data: Uint8Array; readonly mode: number }
    /** `createdDirs`: the parent directories the change creates for it, deepest first. */
    | { readonly exists: false; readonly createdDirs: readonly string[] }
  /** Everything the change writes to the path, in order; null removes it. */
  readonly writes: readonly (string | Uint8Array | null)[]
}

/** A change that was interrupted and has been rolled back at start-up. */
export interface RolledBackChange {
  /** The record's id. */
  readonly id: string
  /** What made the change (e.g. `apply_patch`). */
  readonly label: string
  /** When the change began (ms since the epoch) and the process that was making it. */
  readonly time: number
  readonly pid: number
  /** Put back to their original bytes (and mode). */
  readonly restored: readonly string[]
  /** Created by the change, removed again (with the directories created for them). */
  readonly removed: readonly string[]
  /** Left as they are: changed by something else since the crash, or not restorable (the reason says). */
  readonly kept: readonly { readonly path: string; readonly reason: string }[]
}

/** An open record: `done()` once every file of the change is in place (or the change was undone). */
export interface OpenRecord {
  done(): Promise<void>
}

const MAGIC = "toolbelt-recovery 1"

interface HeaderEntry {
  readonly path: string
  readonly exists: boolean
  readonly mode?: number
  readonly offset?: number
  readonly length?: number
  readonly createdDirs?: readonly string[]
  /** sha256 (hex) of each content written; null for a removal. */
  readonly writes: readonly (string | null)[]
}

interface Header {
  readonly writer: ProcessIdentity
  /** A data dir shared between machines: only the writer's machine can tell whether it still runs. */
  readonly host: string
  readonly label: string
  readonly time: number
  readonly project: string
  readonly entries: readonly HeaderEntry[]
}

/** The recovery records of one project in one data dir. */
export class RecoveryLog {
  readonly dir: string
  readonly project: string

  constructor(options: { readonly dataDir: string; readonly project: string }) {
    this.project = options.project
    const key = createSha256().update(options.project).digest("hex").slice(0, 16)
    this.dir = join(options.dataDir, "recovery", key)
  }

  /**
   * Writes the record of a change about to start; resolves once it is durable.
   * 1. Write the header and the original bytes to `<id>.tmp`, fsync it.
   * 2. Rename it to `<id>.rec` and fsync the directory: from here a crash is rolled back.
   * `done()` removes the record and fsyncs the directory, so a change reported complete is never rolled
   * back after a power cut.
   */
  async begin(entries: readonly ChangeEntry[], label: string): Promise<OpenRecord> {
    const writer = currentProcess()
    const id = `${writer.pid}-${writer.start}-${randomBytes(6).toString("hex")}`
    const created = await mkdir(this.dir, { recursive: true })
    if (created) await syncDirectory(join(this.dir, "..", ".."))
    const blobs: Uint8Array[] = []
    let offset = 0
    const header: Header = {
      writer,
      host: hostname(),
      label,
      time: Date.now(),
      project: this.project,
      entries: entries.map((entry) => {
        const writes = entry.writes.map((content) => (content === null ? null : digest(content)))
        if (!entry.original.exists)
          return { path: entry.path, exists: false, createdDirs: entry.original.createdDirs, writes }
        const { data, mode } = entry.original
        blobs.push(data)
        offset += data.byteLength
        return {
          path: entry.path,
          exists: true,
          mode,
          offset: offset - data.byteLength,
          length: data.byteLength,
          writes,
        }
      }),
    }
    const json = Buffer.from(JSON.stringify(header))
    const temp = join(this.dir, `${id}.tmp`)
    const record = join(this.dir, `${id}.rec`)
    let handle: FileHandle | undefined
    try {
      handle = await open(temp, "wx", 0o600)
      await handle.writeFile(`${MAGIC} ${json.byteLength}\n`)
      await handle.writeFile(json)
      for (const blob of blobs) await handle.writeFile(blob)
      await handle.sync()
      await handle.close()
      handle = undefined
      await rename(temp, record)
    } catch (error) {
      await handle?.close().catch(() => {})
      await rm(temp, { force: true }).catch(() => {})
      throw error
    }
    await syncDirectory(this.dir)
    return {
      done: async () => {
        await rm(record, { force: true })
        await syncDirectory(this.dir)
      },
    }
  }

  /**
   * Rolls back the changes whose writer is gone, and reports them.
   * 1. A record still being written (`.tmp`) by a dead writer is removed: its change never began.
   * 2. A record (`.rec`, or a `.claim` of a recovery that died itself) whose writer runs is left alone.
   *    Otherwise it is claimed by renaming it to `<id>.<our pid>-<start>.claim`, so two starts never
   *    roll back one change twice.
   * 3. Each path, last first: if it holds its original, nothing to do; if it holds what the change
   *    wrote (or is gone where the change removed it), it is put back atomically, or removed when it
   *    did not exist, with the directories created for it; anything else was changed since the crash
   *    and is kept as it is.
   * 4. The record is removed; if a path could not be put back, it is renamed back to `.rec` so the next
   *    start tries again.
   */
  async recover(): Promise<RolledBackChange[]> {
    let names: string[]
    try {
      names = readdirSync(this.dir)
    } catch (error) {
      if (errorCode(error) === "ENOENT") return []
      throw error
    }
    const me = currentProcess()
    const rolledBack: RolledBackChange[] = []
    for (const name of names) {
      const path = join(this.dir, name)
      const temp = /^(\d+)-(\d+)-[0-9a-f]{12}\.tmp$/.exec(name)
      if (temp) {
        if (!processAlive({ pid: Number(temp[1]), start: temp[2]! })) await rm(path, { force: true })
        continue
      }
      const claim = /^(.+)\.(\d+)-(\d+)\.claim$/.exec(name)
      const id = claim ? claim[1]! : name.endsWith(".rec") ? name.slice(0, -4) : undefined
      if (id === undefined) continue
      if (claim && processAlive({ pid: Number(claim[2]), start: claim[3]! })) continue
      const header = await readHeader(path).catch(() => undefined)
      if (!header || header.host !== hostname()) continue
      if (!claim && processAlive(header.writer)) continue
      const claimed = join(this.dir, `${id}.${me.pid}-${me.start}.claim`)
      try {
        await rename(path, claimed)
      } catch {
        continue // another start claimed it first
      }
      const change = await rollBack(id, claimed, header)
      if (change.kept.some((entry) => entry.reason.startsWith(UNRESTORABLE)))
        await rename(claimed, join(this.dir, `${id}.rec`))
      else await rm(claimed, { force: true })
      await syncDirectory(this.dir)
      rolledBack.push(change)
    }
    return rolledBack.sort((a, b) => a.time - b.time)
  }
}

/** One line for a person: what was interrupted and what recovery did. */
export function describeRolledBack(change: RolledBackChange): string {
  const parts = [
    change.restored.length > 0 ? `${change.restored.length} file(s) restored` : "",
    change.removed.length > 0 ? `${change.removed.length} created file(s) removed` : "",
  ].filter(Boolean)
  let text =
    `an interrupted ${change.label} change (process ${change.pid}, started ${new Date(change.time).toISOString()}) ` +
    `was rolled back: ${parts.join(", ") || "no file had changed yet"}.`
  if (change.kept.length > 0) {
    text += ` Left as they are, check them: ${change.kept.map((entry) => `${entry.path} (${entry.reason})`).join("; ")}.`
  }
  return text
}

const UNRESTORABLE = "could not be restored"

async function rollBack(id: string, recordPath: string, header: Header): Promise<RolledBackChange> {
  const restored: string[] = []
  const removed: string[] = []
  const kept: { path: string; reason: string }[] = []
  const record = await open(recordPath, "r")
  try {
    const body = (await headerSize(record)).end
    for (const entry of [...header.entries].reverse()) {
      try {
        const now = await current(entry.path)
        const wrote =
          now === "absent"
            ? entry.writes.includes(null)
            : now !== "other" && entry.writes.includes(digest(now))
        if (entry.exists) {
          const original = Buffer.alloc(entry.length ?? 0)
          await record.read(original, 0, original.byteLength, body + (entry.offset ?? 0))
          if (now instanceof Uint8Array && original.equals(now)) continue
          if (!wrote) {
            kept.push({ path: entry.path, reason: "changed since the interrupted change" })
            continue
          }
          await writeFileAtomic(entry.path, original, { mode: entry.mode ?? 0o644 })
          restored.push(entry.path)
          continue
        }
        if (now !== "absent") {
          if (!wrote) {
            kept.push({ path: entry.path, reason: "changed since the interrupted change" })
            continue
          }
          await rm(entry.path)
          removed.push(entry.path)
        }
        for (const dir of entry.createdDirs ?? []) await rmdir(dir).catch(() => {})
      } catch (error) {
        kept.push({ path: entry.path, reason: `${UNRESTORABLE}: ${(error as Error).message}` })
      }
    }
  } finally {
    await record.close()
  }
  return { id, label: header.label, time: header.time, pid: header.writer.pid, restored, removed, kept }
}

/** The path's bytes now; "absent", or "other" for something that is not a file (a directory). */
async function current(path: string): Promise<Buffer | "absent" | "other"> {
  try {
    if (!(await stat(path)).isFile()) return "other"
    return await readFile(path)
  } catch (error) {
    const code = errorCode(error)
    if (code === "ENOENT" || code === "ENOTDIR") return "absent"
    throw error
  }
}

async function readHeader(path: string): Promise<Header> {
  const handle = await open(path, "r")
  try {
    const { start, end } = await headerSize(handle)
    const json = Buffer.alloc(end - start)
    await handle.read(json, 0, json.byteLength, start)
    return JSON.parse(json.toString("utf8")) as Header
  } finally {
    await handle.close()
  }
}

/** Where the header starts and ends in a record file. */
async function headerSize(handle: FileHandle): Promise<{ start: number; end: number }> {
  const first = Buffer.alloc(64)
  const { bytesRead } = await handle.read(first, 0, first.byteLength, 0)
  const line = first.subarray(0, bytesRead).toString("latin1")
  const match = new RegExp(`^${MAGIC} (\\d+)\\n`).exec(line)
  if (!match) throw new Error("Not a recovery record: the header line is missing.")
  const start = match[0].length
  return { start, end: start + Number(match[1]) }
}

function digest(content: string | Uint8Array): string {
  return createSha256().update(content).digest("hex")
}
