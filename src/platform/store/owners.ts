import { hostname } from "node:os"
import { currentProcess, processAlive } from "../fs/process-identity.ts"
import { ascending } from "../util/id.ts"
import type { Database, Statement } from "./sqlite.ts"

/** Owners open in this process: a store that closed, or never finished opening, is not among them. */
const live = new Set<string>()

interface OwnerRow {
  readonly id: string
  readonly pid: number
  readonly host: string
  readonly start: string
}

/**
 * Who may still be working on an open tool part or a pending ask. Each open store registers one
 * owner row and stamps it on what it writes; recovery only touches what dead owners left behind, so
 * a CLI call starting next to a running server never aborts the server's live calls.
 */
export class Owners {
  /** This store's owner id. */
  readonly id: string
  readonly #db: Database
  readonly #get: Statement
  readonly #delete: Statement

  constructor(db: Database, now = Date.now()) {
    this.#db = db
    this.id = ascending("own", now)
    this.#get = db.prepare("SELECT id, pid, host, start FROM owner WHERE id = ?")
    this.#delete = db.prepare("DELETE FROM owner WHERE id = ?")
    db.prepare("INSERT INTO owner (id, pid, host, start, time_started) VALUES (?, ?, ?, ?, ?)").run(
      this.id,
      process.pid,
      hostname(),
      currentProcess().start,
      now,
    )
    live.add(this.id)
  }

  /**
   * Whether the owner of an open part may still be working on it.
   * 1. No owner, or no owner row (its store closed): dead.
   * 2. This process: alive while that store is open.
   * 3. Another host: unknown, so alive (never abort a call that may still be running).
   * 4. Another process here: alive while that process runs: its pid exists and, where /proc tells,
   *    was started at the recorded time (a pid reused by another process, or a zombie, is dead).
   *    Without /proc a reused pid keeps the part open until that process exits too;
   *    `recover({all: true})` is the escape hatch.
   */
  alive(owner: string | null): boolean {
    if (owner === null) return false
    if (owner === this.id) return true
    const row = this.#get.get<OwnerRow>(owner)
    if (!row) return false
    if (row.host !== hostname()) return true
    if (row.pid === process.pid) return live.has(owner)
    return processAlive({ pid: row.pid, start: row.start })
  }

  /** Forgets owners found dead, so their rows do not pile up. */
  forget(owners: Iterable<string>): void {
    this.#db.transaction(() => {
      for (const owner of owners) if (owner !== this.id) this.#delete.run(owner)
    })
  }

  /** Called when the store closes: what this owner left open becomes recoverable by anyone. */
  release(): void {
    live.delete(this.id)
    this.#delete.run(this.id)
  }
}
