import type { Stats } from "node:fs"
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { type LineIndex, lineIndexOf } from "./line-index.ts"

/**
 * Files at least this large get their line index saved: counting a smaller file again costs a few ms,
 * while a 1 GiB log costs ~0.2 s, every time a new process (a `toolbelt call`, a restarted server) reads a
 * page deep in it.
 */
export const SAVED_INDEX_MIN_BYTES = 32 * 1024 * 1024
/** Saved indexes kept in the folder; the least recently written go first. */
export const MAX_SAVED_INDEXES = 64
const FORMAT = 1

interface SavedIndex {
  readonly format: number
  readonly dev: number
  readonly ino: number
  readonly size: number
  readonly mtimeMs: number
  readonly ctimeMs: number
  readonly totalLines: number
  readonly lines: number[]
  readonly bytes: number[]
}

/**
 * Line indexes of large files saved in a folder of the data directory, one small JSON file per file
 * (device and inode), valid only for the exact version it was built from (size, mtime and ctime). It is a
 * cache: a missing, stale, torn or unreadable entry is ignored (and a stale one removed), and failing to
 * save never fails a read.
 */
export class LineIndexFolder {
  readonly dir: string
  readonly #minBytes: number

  constructor(dir: string, options: { minBytes?: number } = {}) {
    this.dir = dir
    this.#minBytes = options.minBytes ?? SAVED_INDEX_MIN_BYTES
  }

  /** The saved index of this version of the file, if there is one. */
  async load(stats: Stats): Promise<LineIndex | undefined> {
    if (stats.size < this.#minBytes) return undefined
    const path = this.#pathOf(stats)
    let saved: SavedIndex
    try {
      saved = JSON.parse(await readFile(path, "utf8")) as SavedIndex
    } catch {
      return undefined
    }
    if (!isValid(saved, stats)) {
      await rm(path, { force: true }).catch(() => {})
      return undefined
    }
    return lineIndexOf({
      totalLines: saved.totalLines,
      hash: undefined,
      lines: saved.lines,
      bytes: saved.bytes,
    })
  }

  /** Saves the index of this version of the file (large files only); false when it could not. */
  async save(stats: Stats, index: LineIndex): Promise<boolean> {
    if (stats.size < this.#minBytes) return false
    const saved: SavedIndex = {
      format: FORMAT,
      dev: stats.dev,
      ino: stats.ino,
      size: stats.size,
      mtimeMs: stats.mtimeMs,
      ctimeMs: stats.ctimeMs,
      totalLines: index.totalLines,
      lines: [...index.data.lines],
      bytes: [...index.data.bytes],
    }
    const path = this.#pathOf(stats)
    // Written aside and renamed over, so a reader never sees half an index (and a torn one is ignored).
    const temp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`
    try {
      await mkdir(this.dir, { recursive: true })
      await writeFile(temp, JSON.stringify(saved))
      await rename(temp, path)
      await this.#prune()
      return true
    } catch {
      await rm(temp, { force: true }).catch(() => {})
      return false
    }
  }

  #pathOf(stats: Stats): string {
    return join(this.dir, `${stats.dev}-${stats.ino}.json`)
  }

  /** Keeps the newest `MAX_SAVED_INDEXES` indexes. */
  async #prune(): Promise<void> {
    const names = (await readdir(this.dir)).filter((name) => name.endsWith(".json"))
    if (names.length <= MAX_SAVED_INDEXES) return
    const dated = await Promise.all(
      names.map(async (name) => ({
        name,
        time: await stat(join(this.dir, name)).then(
          (s) => s.mtimeMs,
          () => 0,
        ),
      })),
    )
    dated.sort((a, b) => b.time - a.time)
    await Promise.all(
      dated.slice(MAX_SAVED_INDEXES).map(({ name }) => rm(join(this.dir, name), { force: true })),
    )
  }
}

function isValid(saved: SavedIndex, stats: Stats): boolean {
  if (saved.format !== FORMAT) return false
  if (saved.dev !== stats.dev || saved.ino !== stats.ino || saved.size !== stats.size) return false
  if (saved.mtimeMs !== stats.mtimeMs || saved.ctimeMs !== stats.ctimeMs) return false
  const { lines, bytes } = saved
  if (!Array.isArray(lines) || !Array.isArray(bytes) || lines.length !== bytes.length || lines.length === 0)
    return false
  if (lines[0] !== 1 || bytes[0] !== 0 || !Number.isSafeInteger(saved.totalLines)) return false
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]
    const byte = bytes[i]
    if (typeof line !== "number" || typeof byte !== "number") return false
    if (line <= lines[i - 1]! || byte <= bytes[i - 1]! || byte > stats.size || line > saved.totalLines + 1)
      return false
  }
  return true
}
