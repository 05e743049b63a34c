// On a shared PostgreSQL store, serve's event log is the database's: every instance appends the events
// it publishes to the store's event table and streams the table, so `/events` on any instance carries
// the fleet's events, once each, in one order, and an event id resumes on any of them.
import { EVENT_CHANNEL, type NewStoredEvent, StoreEvents } from "../../platform/store/events.ts"
import { isPostgres, type Listening, type PostgresDatabase } from "../../platform/store/postgres/database.ts"
import type { Store } from "../../platform/store/store.ts"
import { logger } from "../../platform/util/log.ts"
import { type AnyEvent, type Bus, type Subscription, sessionOf } from "../../runtime/bus/bus.ts"
import { EventLog, type LoggedEvent, SYNC_EVENT } from "./event-log.ts"

const log = logger("serve")

/** Events the table keeps at most (the newest); older ones are deleted by whichever instance prunes. */
export const FLEET_EVENTS_KEEP = 100_000

/** Events older than this are deleted too. */
export const FLEET_EVENTS_MAX_AGE_MS = 60 * 60 * 1000

/** How often the table is read without a NOTIFY (a missed one, a lost listening connection). */
export const FLEET_POLL_MS = 1000

/** How often an instance prunes the table. */
const PRUNE_EVERY_MS = 60_000

/** Rows read per query while catching up. */
const READ_BATCH = 1000

/** The bus queue of the appender: far more than a burst of calls publishes at once. */
const SUBSCRIBER_LIMIT = 200_000

export interface EventLogFor {
  readonly bus: Bus
  readonly store: Store
  readonly capacity?: number
  /** How often to read the table without a NOTIFY (default `FLEET_POLL_MS`). */
  readonly pollMs?: number
}

/** Serve's event log: the store's (the fleet's) on PostgreSQL, else this process's bus, in memory. */
export function eventLogFor(options: EventLogFor): EventLog {
  const capacity = options.capacity ? { capacity: options.capacity } : {}
  if (!isPostgres(options.store.db)) return new EventLog({ bus: options.bus, ...capacity })
  return new FleetEvents(options.store.db, options.bus, { ...capacity, ...options }).log
}

/**
 * The fleet's events for one instance.
 * 1. Appending: a bus subscriber queues each event this process publishes, in publish order; what a
 *    drain of the bus delivered is appended in one transaction (events.ts: numbered under an advisory
 *    lock, NOTIFY on commit). A batch that fails (the database restarting) is kept and tried again.
 *    Events the bus dropped for it become one `server.sync`. Nothing is sent from memory: an event
 *    reaches this instance's clients only through the table, so none gets it twice.
 * 2. Tailing: woken by LISTEN (and again after the listening connection came back), after its own
 *    appends, and every `pollMs` regardless, it reads the rows after the newest it has into the log,
 *    whose ids are `<store identity>.<seq>`; a client behind what the log holds in memory is served
 *    from the table, while the table still has the events after its id.
 * 3. Retention: every minute, the events beyond the newest `FLEET_EVENTS_KEEP` or older than
 *    `FLEET_EVENTS_MAX_AGE_MS` are deleted (any instance may; it is idempotent).
 */
class FleetEvents {
  readonly log: EventLog
  readonly #events: StoreEvents
  readonly #subscription: Subscription
  readonly #listening: Promise<Listening | undefined>
  readonly #timer: NodeJS.Timeout
  #pending: NewStoredEvent[] = []
  #scheduled = false
  #lost = false
  #lastPrune = 0
  #closed = false
  #failing = false

  constructor(db: PostgresDatabase, bus: Bus, options: { capacity?: number; pollMs?: number }) {
    this.#events = new StoreEvents(db)
    this.log = new EventLog({
      epoch: this.#events.identity(),
      ...(options.capacity ? { capacity: options.capacity } : {}),
      backfill: (seq, max) => this.#backfill(seq, max),
      catchUp: () => this.#poll(),
      onClose: () => this.#close(),
    })
    // 2. New clients start now: the log begins after the newest event.
    this.log.startAt(this.#events.newest() + 1)
    this.#subscription = bus.subscribe("*", (event) => this.#queue(event), {
      limit: SUBSCRIBER_LIMIT,
      overflow: "drop-oldest",
      onOverflow: () => {
        this.#lost = true
      },
    })
    this.#listening = db
      .listen(
        EVENT_CHANNEL,
        // The payload is the append's newest seq: one this log has (its own append, read after it) costs no read.
        (payload) => {
          if (!(Number(payload) <= this.log.last)) this.#poll()
        },
        () => this.#poll(),
      )
      .catch((error: unknown) => {
        log.warn("listening for the fleet's events failed; reading them every second", {
          error: String(error),
        })
        return undefined
      })
    this.#timer = setInterval(() => this.#tick(), options.pollMs ?? FLEET_POLL_MS)
    this.#timer.unref()
  }

  /** 1. Queues an event; the batch is appended once the bus's current drain is over. */
  #queue(event: AnyEvent): void {
    if (this.#lost) {
      this.#lost = false
      const reason = "the server could not keep up and dropped events"
      this.#pending.push({
        type: SYNC_EVENT,
        session: undefined,
        data: JSON.stringify({ type: SYNC_EVENT, properties: { reason } }),
      })
    }
    const { type, properties } = event
    this.#pending.push({ type, session: sessionOf(event), data: JSON.stringify({ type, properties }) })
    if (this.#scheduled) return
    this.#scheduled = true
    setImmediate(() => {
      this.#scheduled = false
      this.#flush()
    })
  }

  #flush(): void {
    if (this.#pending.length === 0) return
    const batch = this.#pending
    this.#pending = []
    try {
      this.#events.append(batch)
      this.#failing = false
    } catch (error) {
      // Kept, in order, ahead of what came meanwhile; the next tick tries again.
      this.#pending = batch.concat(this.#pending)
      if (!this.#failing) {
        this.#failing = true
        log.warn("appending events to the store failed; trying again", { error: String(error) })
      }
      return
    }
    this.#poll()
  }

  /** 2. Reads the rows after the newest the log has. */
  #poll(): void {
    if (this.#closed) return
    try {
      for (;;) {
        const rows = this.#events.after(this.log.last, READ_BATCH)
        for (const row of rows) this.log.put(row.seq, row.type, row.session, row.data)
        if (rows.length < READ_BATCH) return
      }
    } catch (error) {
      log.warn("reading the fleet's events failed; trying again", { error: String(error) })
    }
  }

  #backfill(seq: number, max: number): LoggedEvent[] | undefined {
    try {
      const oldest = this.#events.oldest()
      if (oldest === undefined || oldest > seq + 1) return undefined
      return this.#events.after(seq, max).map((row) => ({
        seq: row.seq,
        type: row.type,
        session: row.session,
        frame: `id: ${this.log.id(row.seq)}\ndata: ${row.data}\n\n`,
      }))
    } catch {
      return undefined
    }
  }

  #tick(): void {
    this.#flush()
    this.#poll()
    // 3. Retention.
    const now = Date.now()
    if (now - this.#lastPrune < PRUNE_EVERY_MS) return
    this.#lastPrune = now
    try {
      this.#events.prune(FLEET_EVENTS_KEEP, FLEET_EVENTS_MAX_AGE_MS, now)
    } catch (error) {
      log.warn("pruning the fleet's events failed", { error: String(error) })
    }
  }

  #close(): void {
    if (this.#closed) return
    this.#subscription()
    this.#flush()
    this.#closed = true
    clearInterval(this.#timer)
    void this.#listening.then((listening) => listening?.unlisten()).catch(() => {})
  }
}
