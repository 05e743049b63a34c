import { hostname } from "node:os"
import { currentProcess, processAlive } from "../fs/process-identity.ts"
import { monotonicMs } from "../util/clock.ts"
import { ascending } from "../util/id.ts"
import type { Database, Statement } from "./sqlite.ts"

/** Owners open in this process: a store that closed, or never finished opening, is not among them. */
const live = new Set<string>()

/** How often an owner on a shared (PostgreSQL) store renews its lease, ms. */
export const HEARTBEAT_MS = 5_000

/**
 * How long a lease lasts without a heartbeat, ms: four missed beats. Past it the fleet takes the owner
 * for dead (its host or process is gone, or cut off from the database) and closes what it left open.
 */
export const LEASE_MS = 20_000

interface OwnerRow {
  readonly id: string
  readonly pid: number
  readonly host: string
  readonly start: string
  readonly heartbeat: number | null
  readonly time_started: number
}

/**
 * Who may still be working on an open tool part or a pending ask. Each open store registers one
 * owner row and stamps it on what it writes; recovery only touches what dead owners left behind, so
 * a CLI call starting next to a running server never aborts the server's live calls.
 *
 * On PostgreSQL, where owners run on many hosts, each owner holds a lease: its row's `heartbeat` is
 * renewed every `HEARTBEAT_MS` by a timer of its own, and an owner elsewhere whose lease is older
 * than `LEASE_MS` is dead (`expired()` lists them for the fleet's sweeper).
 */
export class Owners {
  /** This store's owner id. */
  readonly id: string
  readonly #db: Database
  readonly #now: () => number
  readonly #get: Statement
  readonly #delete: Statement
  readonly #insert: Statement
  readonly #beat: Statement
  /** PostgreSQL: takes the lease again if the fleet removed it, inside a new call's write (`reclaim()`). */
  readonly #reclaim: Statement | undefined
  readonly #expired: Statement
  readonly #take: Statement
  readonly #clock: Statement | undefined
  readonly #timer: NodeJS.Timeout | undefined
  /** When this owner's last beat reached the database, and since when they have come on time (monotonic ms). */
  #lastBeat: number | undefined = monotonicMs()
  #steadySince = monotonicMs()
  #lapses = 0
  /** The `time_started` of this owner's row as last registered: a row taken again by `reclaim()` differs. */
  #registered = 0
  /** Whether this owner's row was written (SQLite writes it with the first thing stamped, `stamp()`). */
  #hasRow = false
  /** Until when (monotonic ms) the lease is certainly held: no sweep can have removed the row before. */
  #heldUntil = monotonicMs() + LEASE_MS - HEARTBEAT_MS

  constructor(db: Database, now: () => number = Date.now) {
    this.#db = db
    this.#now = now
    this.id = ascending("own", now())
    this.#get = db.prepare("SELECT id, pid, host, start, heartbeat, time_started FROM owner WHERE id = ?")
    this.#delete = db.prepare("DELETE FROM owner WHERE id = ?")
    this.#insert = db.prepare(
      "INSERT INTO owner (id, pid, host, start, time_started, heartbeat) VALUES (?, ?, ?, ?, ?, ?)",
    )
    this.#beat = db.prepare("UPDATE owner SET heartbeat = ? WHERE id = ? RETURNING time_started")
    this.#expired = db.prepare(
      "SELECT id FROM owner WHERE id <> ? AND COALESCE(heartbeat, time_started) < ? ORDER BY id",
    )
    this.#take = db.prepare("DELETE FROM owner WHERE id = ? AND COALESCE(heartbeat, time_started) < ?")
    const clock = "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)"
    this.#clock = db.engine === "postgres" ? db.prepare(`SELECT ${clock} AS now`) : undefined
    this.#reclaim =
      db.engine === "postgres"
        ? db.prepare(
            `INSERT INTO owner (id, pid, host, start, time_started, heartbeat) VALUES (?, ?, ?, ?, ${clock}, ${clock}) ON CONFLICT (id) DO NOTHING`,
          )
        : undefined
    live.add(this.id)
    if (db.engine === "postgres") {
      this.#register()
      this.#timer = setInterval(() => this.beat(), HEARTBEAT_MS)
      // The lease must not keep a process alive that has nothing else to do.
      this.#timer.unref()
    }
  }

  /**
   * Renews this owner's lease. A row the fleet removed meanwhile (this process stalled or was cut off
   * past its lease, and the sweep closed its open calls as interrupted) is a lapse: counted, and a new
   * lease taken under the same id (replies to this owner's asks keep finding it), for the calls that
   * come next. Calls that were running keep their interrupted record; one that finishes after all adds
   * its result beside it (journal.finished()). A database that cannot be reached is retried at the
   * next beat: the lease lasts four of them.
   */
  beat(): void {
    const started = monotonicMs()
    try {
      const row = this.#beat.get<{ time_started: number | string }>(this.#time(), this.id)
      if (!row) {
        this.#lapses++
        this.#register()
      } else if (Number(row.time_started) !== this.#registered) {
        // Removed, and taken again by a new call's write (`reclaim()`) before this beat: a lapse too.
        this.#lapses++
        this.#registered = Number(row.time_started)
      }
      // The heartbeat written is the database's time after `started`: the row is safe for a lease from
      // it (less a beat, for the clocks' rates and the time the beat took).
      this.#heldUntil = started + LEASE_MS - HEARTBEAT_MS
    } catch {
      // Reconnecting, or closed: the next beat tries again (and a closed store stops beating).
      this.#lastBeat = undefined
      return
    }
    const now = monotonicMs()
    if (this.#lastBeat === undefined || now - this.#lastBeat > 2 * HEARTBEAT_MS) this.#steadySince = now
    this.#lastBeat = now
  }

  /**
   * Before a new call is recorded: when this owner's beats have not reached the database for so long
   * that the fleet may have swept it (a stalled process, a cut-off network), beat now, taking a new
   * lease if the row is gone, so the call is not stamped with an owner that has no row (a store opening
   * meanwhile would close it as interrupted). Costs nothing while the beats come on time.
   */
  ensureLease(): void {
    if (this.#reclaim && monotonicMs() > this.#heldUntil) this.beat()
  }

  /**
   * Inside a new call's first write (PostgreSQL): puts this owner's row back if the fleet removed it
   * although the beats came on time (the sweeper judged by a heartbeat it saw old), in the same
   * transaction as the call, so the call is never committed without its owner's row. The statement's
   * answer is not read: it rides with the write (postgres/held.ts). The next beat counts the lapse.
   */
  reclaim(): void {
    this.#reclaim?.run(this.id, process.pid, hostname(), currentProcess().start)
  }

  /** How many times this owner found its lease taken by the fleet (see `beat()`). */
  get lapses(): number {
    return this.#lapses
  }

  /**
   * Whether this owner's beats have reached the database on time for a whole lease. After the database
   * was out of reach (a restart) or this process stalled, every owner's heartbeat is old for a while
   * through no fault of its own: judging others before they had a lease's time to beat again would
   * sweep live instances. The fleet sweeps only while this holds.
   */
  steady(): boolean {
    return this.#lastBeat !== undefined && monotonicMs() - this.#steadySince >= LEASE_MS
  }

  /**
   * Whether the owner of an open part may still be working on it.
   * 1. No owner, or no owner row (its store closed, or the fleet found its lease expired): dead.
   * 2. This process: alive while that store is open.
   * 3. Another process here that has exited: dead. It runs while its pid exists and, where /proc
   *    tells, was started at the recorded time (a pid reused by another process, or a zombie, is dead).
   *    Without /proc a reused pid keeps the part open until that process exits too;
   *    `recover({all: true})` is the escape hatch.
   * 4. PostgreSQL, any other owner: alive while its lease holds (a heartbeat within `LEASE_MS`).
   * 5. SQLite: a running process here is alive; so is an owner on another host, which cannot be
   *    checked (never abort a call that may still be running).
   */
  alive(owner: string | null): boolean {
    if (owner === null) return false
    if (owner === this.id) return true
    const row = this.#get.get<OwnerRow>(owner)
    if (!row) return false
    const here = row.host === hostname()
    if (here && row.pid === process.pid) return live.has(owner)
    // A process of this host that is gone is dead at once, whatever its lease says.
    if (here && !processAlive({ pid: row.pid, start: row.start })) return false
    if (this.#db.engine === "postgres") {
      return Number(row.heartbeat ?? row.time_started) >= this.#time() - LEASE_MS
    }
    return true
  }

  /** PostgreSQL: the other owners whose lease has expired, oldest first (none on SQLite). */
  expired(): string[] {
    if (this.#db.engine !== "postgres") return []
    return this.#expired.all<{ id: string }>(this.id, this.#time() - LEASE_MS).map((row) => row.id)
  }

  /**
   * Removes an expired owner's row, if it is still there and still expired: true for the one caller
   * that removed it (inside a transaction, the row stays locked until it commits, so of several
   * sweepers exactly one goes on to close what the owner left).
   */
  take(owner: string): boolean {
    return this.#take.run(owner, this.#time() - LEASE_MS).changes === 1
  }

  /** Forgets owners found dead, so their rows do not pile up. */
  forget(owners: Iterable<string>): void {
    this.#db.transaction(() => {
      for (const owner of owners) if (owner !== this.id) this.#delete.run(owner)
    })
  }

  /**
   * This owner's id, for a row about to be stamped with it (an open part, an ask): on SQLite the owner's
   * own row is written first, with the first such row. A store that stamps nothing (`toolbelt tools`,
   * a listing) then writes nothing at all: no owner row to insert and delete, no WAL to check point
   * when it closes. Inside the stamping write's transaction, the owner row commits with it: nothing is
   * ever committed stamped with an owner that has no row. PostgreSQL registers at once (the lease).
   */
  stamp(): string {
    if (!this.#hasRow) this.#register()
    return this.id
  }

  /** Called when the store closes: what this owner left open becomes recoverable by anyone. */
  release(): void {
    if (this.#timer) clearInterval(this.#timer)
    live.delete(this.id)
    if (this.#hasRow) this.#delete.run(this.id)
  }

  /**
   * Now, for leases: PostgreSQL's clock, the one clock every host of the fleet shares (hosts' own clocks
   * may drift apart by more than a lease); this process's on SQLite.
   */
  #time(): number {
    const row = this.#clock?.get<{ now: number | string }>()
    return row ? Number(row.now) : this.#now()
  }

  #register(): void {
    const now = this.#time()
    this.#insert.run(this.id, process.pid, hostname(), currentProcess().start, now, now)
    this.#registered = now
    this.#hasRow = true
  }
}
