// The messages sent on MCP's HTTP streams, kept so that a client whose stream dropped can reconnect
// with `Last-Event-ID` and get what it missed (the spec's resumability, the SDK's `EventStore`).
import { AsyncLocalStorage } from "node:async_hooks"
import { randomBytes } from "node:crypto"
import type {
  EventId,
  EventStore,
  JSONRPCMessage,
  RequestId,
  StreamId,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server"

/** How much is kept: per session and over all sessions, in events and in bytes of JSON. */
export interface ReplayLimits {
  readonly sessionEvents: number
  readonly sessionBytes: number
  readonly totalEvents: number
  readonly totalBytes: number
  /** Bytes of JSON one replay sends at most (default `DEFAULT_REPLAY_BYTES`). */
  readonly replayBytes?: number
}

/**
 * What one resume replays at most. The SDK queues a replay on the stream before it answers, so this
 * is what a client that resumes and then does not read can hold; a client with more to get resumes
 * again from the last event it got.
 */
export const DEFAULT_REPLAY_BYTES = 1024 * 1024

/**
 * Enough for the progress and the results of the calls a session has in flight (results are already
 * bounded by the tool output limits: 50 KB a call), and a total small enough that what is kept (live
 * JS heap, which V8 sizes its heap at a multiple of) does not set the server's memory: 16 MiB, as
 * `toolbelt serve`'s event log.
 */
export const DEFAULT_REPLAY_LIMITS: ReplayLimits = {
  sessionEvents: 1000,
  sessionBytes: 8 * 1024 * 1024,
  totalEvents: 20_000,
  totalBytes: 16 * 1024 * 1024,
}

/** Appended to a stream's id to name none (the SDK's ids are UUIDs and `_GET_stream`): a cut replay. */
const CUT_STREAM = "#replay-cut"

/** What one kept event costs besides its JSON: its maps' entries and the entry itself. */
const EVENT_OVERHEAD_BYTES = 64

interface Stream {
  readonly id: StreamId
  /** Random, unguessable: the part of an event id that names the stream within its session. */
  readonly token: string
  /** The number the next event of the stream gets. */
  next: number
  /** Its kept events, oldest first, by number. */
  readonly events: Map<number, Entry>
  /** The requests whose messages it carries, and what became of each. */
  readonly requests: Map<RequestId, "open" | "answered" | "cancelled">
}

/** What a `Last-Event-ID` can resume. */
export type Resumption =
  /** The messages after it are replayed, then the stream goes on live until its response. */
  | "replay"
  /** Nothing: another session's id, one of a finished stream dropped by the limits, or no event at all. */
  | "unknown"
  /** Nothing more: every request of the stream was cancelled, so no response will ever come. */
  | "cancelled"

/**
 * The requests a stored event belongs to: those of the POST being handled (the SDK's priming event
 * opens a POST's stream before any message), or the one a sent message answers or relates to.
 */
const relatedRequests = new AsyncLocalStorage<readonly RequestId[]>()

/** Runs `run` with the requests the events it stores belong to. */
export function relating<T>(requests: readonly RequestId[], run: () => T): T {
  return relatedRequests.run(requests, run)
}

/**
 * Makes every message the transport sends say which request it belongs to (none for those of the
 * standalone GET stream), for the events it stores.
 */
export function relateSends(transport: WebStandardStreamableHTTPServerTransport): void {
  const send = transport.send.bind(transport)
  transport.send = (message, options) => {
    const related = options?.relatedRequestId ?? answeredRequest(message)
    return relating(related === undefined ? [] : [related], () => send(message, options))
  }
}

/**
 * The request a response answers. Told by its shape, not by the SDK's schemas: every message is
 * looked at, and a schema would check all of a large result again.
 */
function answeredRequest(message: JSONRPCMessage): RequestId | undefined {
  if (!("id" in message) || "method" in message) return undefined
  if (!("result" in message) && !("error" in message)) return undefined
  const id = (message as { id?: unknown }).id
  return typeof id === "string" || typeof id === "number" ? id : undefined
}

interface Entry {
  /** Its place in the order of all sessions' events. */
  readonly key: number
  readonly owner: SessionEvents
  readonly stream: Stream
  readonly number: number
  /** The message as JSON; none for the SDK's priming event (an id with no message). */
  readonly json: string | undefined
  readonly bytes: number
}

/**
 * The events of every session, under one total bound.
 * 1. `forSession` gives each MCP session its own `EventStore`: an event id names a stream of that
 *    session only (a random token, then the event's number), so another session's id replays
 *    nothing, and an id cannot be guessed.
 * 2. Each event is kept as JSON. Past a session's bound, its oldest events go; past the total bound,
 *    the oldest of all sessions go. An event bigger than a bound on its own is not kept. A stream
 *    is forgotten once nothing of it is kept and its requests are done.
 * 3. Ending a session's store drops its events at once.
 */
export class ReplayStore {
  readonly limits: ReplayLimits
  /** Every kept event, oldest first, by a number that only grows. */
  readonly #entries = new Map<number, Entry>()
  #counter = 0
  #bytes = 0

  constructor(limits: ReplayLimits = DEFAULT_REPLAY_LIMITS) {
    this.limits = limits
  }

  /** Events kept over all sessions. */
  get events(): number {
    return this.#entries.size
  }

  /** Bytes kept over all sessions. */
  get bytes(): number {
    return this.#bytes
  }

  /** 1. A new session's store. */
  forSession(): SessionEvents {
    return new SessionEvents(this, {
      keep: (entry) => {
        this.#entries.set(entry.key, entry)
        this.#bytes += entry.bytes
        // 2. The oldest of all sessions go first.
        while (this.#entries.size > this.limits.totalEvents || this.#bytes > this.limits.totalBytes) {
          const oldest = this.#entries.values().next().value
          if (!oldest) break
          oldest.owner.drop(oldest)
        }
      },
      forget: (entry) => {
        if (this.#entries.delete(entry.key)) this.#bytes -= entry.bytes
      },
      key: () => this.#counter++,
    })
  }
}

/** How a session's store reaches the shared total. */
interface Shared {
  keep(entry: Entry): void
  forget(entry: Entry): void
  key(): number
}

/** One MCP session's events, the `EventStore` its transport writes to and replays from. */
export class SessionEvents implements EventStore {
  readonly #store: ReplayStore
  readonly #shared: Shared
  readonly #streams = new Map<StreamId, Stream>()
  readonly #byToken = new Map<string, Stream>()
  /** This session's kept events, oldest first, by their key in the shared store. */
  readonly #entries = new Map<number, Entry>()
  #bytes = 0
  #ended = false

  constructor(store: ReplayStore, shared: Shared) {
    this.#store = store
    this.#shared = shared
  }

  /** Events this session keeps. */
  get events(): number {
    return this.#entries.size
  }

  /** Bytes this session keeps. */
  get bytes(): number {
    return this.#bytes
  }

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    // A session that ended keeps nothing (a call still finishing sends into the void).
    if (this.#ended) return `${token()}.0`
    const stream = this.#streams.get(streamId) ?? this.#open(streamId)
    for (const request of relatedRequests.getStore() ?? []) {
      if (!stream.requests.has(request)) stream.requests.set(request, "open")
    }
    const answered = answeredRequest(message)
    if (answered !== undefined) stream.requests.set(answered, "answered")
    const number = stream.next++
    const json = Object.keys(message).length === 0 ? undefined : JSON.stringify(message)
    const bytes = (json === undefined ? 0 : Buffer.byteLength(json)) + EVENT_OVERHEAD_BYTES
    const limits = this.#store.limits
    if (bytes > limits.sessionBytes || bytes > limits.totalBytes) {
      // 2. Too big to keep: a client that misses it cannot get it back.
      this.#forgetIfDone(stream)
      return `${stream.token}.${number}`
    }
    const entry: Entry = { key: this.#shared.key(), owner: this, stream, number, json, bytes }
    stream.events.set(number, entry)
    this.#entries.set(entry.key, entry)
    this.#bytes += bytes
    while (this.#entries.size > limits.sessionEvents || this.#bytes > limits.sessionBytes) {
      const oldest = this.#entries.values().next().value
      if (!oldest) break
      this.drop(oldest)
    }
    this.#shared.keep(entry)
    return `${stream.token}.${number}`
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return this.#find(eventId)?.stream.id
  }

  /**
   * Sends the kept messages of the event's stream that came after it, in order. Events stored while
   * this runs are sent too: the transport only writes live to the stream once this returns.
   * At most `replayBytes` go (at least one event): when more is left, the replay names a stream the
   * transport does not have, which makes it end the response after what was sent (it closes a
   * resumed stream without open requests), and the client resumes from the last event it got.
   */
  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const found = this.#find(lastEventId)
    if (!found) throw new Error(`No stream of this session has the event ${lastEventId}.`)
    const { stream, after } = found
    const most = this.#store.limits.replayBytes ?? DEFAULT_REPLAY_BYTES
    let sent = 0
    // A Map's iteration also visits what is added to it meanwhile.
    for (const entry of stream.events.values()) {
      if (entry.number <= after || entry.json === undefined) continue
      if (sent > 0 && sent + entry.bytes > most) return `${stream.id}${CUT_STREAM}`
      await send(`${stream.token}.${entry.number}`, JSON.parse(entry.json) as JSONRPCMessage)
      sent += entry.bytes
    }
    return stream.id
  }

  /** What a client that reconnects with this `Last-Event-ID` can get. */
  resumption(eventId: EventId): Resumption {
    const found = this.#find(eventId)
    if (!found) return "unknown"
    const states = [...found.stream.requests.values()]
    return states.length > 0 && states.every((state) => state === "cancelled") ? "cancelled" : "replay"
  }

  /** The client cancelled the request: no response will come on its stream. */
  cancel(request: RequestId): void {
    for (const stream of this.#streams.values()) {
      if (stream.requests.get(request) !== "open") continue
      stream.requests.set(request, "cancelled")
      this.#forgetIfDone(stream)
    }
  }

  /** 3. The session ended: everything goes, and nothing more is kept. */
  end(): void {
    this.#ended = true
    for (const entry of [...this.#entries.values()]) this.drop(entry)
    this.#streams.clear()
    this.#byToken.clear()
  }

  /** Lets go of one event (too old for a bound, or the session ended). */
  drop(entry: Entry): void {
    if (!this.#entries.delete(entry.key)) return
    this.#bytes -= entry.bytes
    this.#shared.forget(entry)
    entry.stream.events.delete(entry.number)
    this.#forgetIfDone(entry.stream)
  }

  /**
   * A stream with nothing kept whose requests are all answered or cancelled is forgotten: nothing is
   * left to replay, nothing more will come, and its ids name nothing. The standalone stream, and a
   * stream whose request still runs, stay (a record, no events): a client resuming them gets what
   * comes next.
   */
  #forgetIfDone(stream: Stream): void {
    if (stream.events.size > 0 || stream.requests.size === 0) return
    for (const state of stream.requests.values()) if (state === "open") return
    if (this.#streams.get(stream.id) === stream) this.#streams.delete(stream.id)
    this.#byToken.delete(stream.token)
  }

  #open(streamId: StreamId): Stream {
    const stream: Stream = { id: streamId, token: token(), next: 0, events: new Map(), requests: new Map() }
    this.#streams.set(streamId, stream)
    this.#byToken.set(stream.token, stream)
    return stream
  }

  /** The stream an event id names in this session, and the event's number. */
  #find(eventId: EventId): { stream: Stream; after: number } | undefined {
    const dot = eventId.lastIndexOf(".")
    const digits = eventId.slice(dot + 1)
    const after = Number(digits)
    if (dot <= 0 || !/^\d{1,15}$/.test(digits)) return undefined
    const stream = this.#byToken.get(eventId.slice(0, dot))
    if (!stream || after >= stream.next) return undefined
    return { stream, after }
  }
}

/** 128 random bits, URL-safe (no dot, so the number after the last dot is the event's). */
function token(): string {
  return randomBytes(16).toString("base64url")
}
