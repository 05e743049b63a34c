// The events serve's log holds for clients that resume, kept so that they cost V8's heap next to
// nothing: no object per event, and the frames outside the heap, back to back in slabs of their own.

/** An event as the log hands it out: built when asked for, from what is held. */
export interface LoggedEvent {
  /** Its place in the order: 1, 2, 3, … for the life of the process. */
  readonly seq: number
  readonly type: string
  /** The session it belongs to, if any (per-session filtering). */
  readonly session: string | undefined
  /** The SSE frame, serialized once for every client: `id:` and `data:` lines. */
  readonly frame: string
  /** The frame as UTF-8, when the log holds it so: encoded once for every client. */
  readonly bytes?: Uint8Array
}

/** The most a slab holds; a frame larger than a sixteenth of a slab gets memory of its own. */
export const SLAB_BYTES = 256 * 1024

/** A held event handed out: a view of its bytes, the text decoded only when asked for. */
class HeldEvent implements LoggedEvent {
  readonly seq: number
  readonly type: string
  readonly session: string | undefined
  readonly bytes: Buffer

  constructor(seq: number, type: string, session: string | undefined, bytes: Buffer) {
    this.seq = seq
    this.type = type
    this.session = session
    this.bytes = bytes
  }

  get frame(): string {
    return this.bytes.toString("utf8")
  }
}

/**
 * The held events, oldest first, as parallel arrays (a number or a reference per event, no object
 * of its own), their frames in slabs.
 * 1. Why: the log holds thousands of events (bench/serve-load.bench.ts: 20,000 held cost serve
 *    10-27 MiB of RSS more than 500), each living just long enough to reach V8's old generation. An
 *    object and a Buffer per event were 4.9 MiB of live heap at 20,000 held (gone with this); frames
 *    cut from Node's shared Buffer pool each kept a whole 64 KiB slab alive, with whatever else was
 *    cut from it (44.5 MiB of slabs for 5 MiB of frames).
 * 2. A slab is written once, front to back, and never reused: a frame handed to a client (a view
 *    of its slab, queued on a socket) never changes under it. A slab goes once no held event and
 *    no queued chunk refers to it.
 * 3. `bytes` counts the frames' own bytes; what is kept alive is that, plus the end of each slab no
 *    frame fitted in (less than a sixteenth of it: a larger frame gets memory of its own), plus the
 *    unused end of the newest slab and the dropped start of the oldest.
 */
export class HeldFrames {
  readonly #slabBytes: number
  #types: (string | undefined)[] = []
  #sessions: (string | undefined)[] = []
  #slabs: (Buffer | undefined)[] = []
  #offsets: number[] = []
  #lengths: number[] = []
  /** Index of the oldest held event in the arrays. */
  #head = 0
  #bytes = 0
  /** The slab being filled, and how much of it is used. */
  #slab: Buffer | undefined
  #used = 0

  /** `slabBytes`: at most `SLAB_BYTES`; smaller for a small byte budget, so slabs stay a small part of it. */
  constructor(slabBytes = SLAB_BYTES) {
    this.#slabBytes = Math.max(1024, Math.min(SLAB_BYTES, Math.floor(slabBytes)))
  }

  get size(): number {
    return this.#types.length - this.#head
  }

  /** Bytes of the frames held. */
  get bytes(): number {
    return this.#bytes
  }

  push(type: string, session: string | undefined, frame: string): void {
    const length = Buffer.byteLength(frame)
    let slab: Buffer
    let offset = 0
    if (length > this.#slabBytes / 16) slab = Buffer.allocUnsafeSlow(length)
    else {
      if (!this.#slab || this.#used + length > this.#slab.length) {
        this.#slab = Buffer.allocUnsafeSlow(this.#slabBytes)
        this.#used = 0
      }
      slab = this.#slab
      offset = this.#used
      this.#used += length
    }
    slab.write(frame, offset, length, "utf8")
    this.#types.push(type)
    this.#sessions.push(session)
    this.#slabs.push(slab)
    this.#offsets.push(offset)
    this.#lengths.push(length)
    this.#bytes += length
  }

  /** Drops the oldest. */
  shift(): void {
    if (this.size === 0) return
    const head = this.#head
    this.#bytes -= this.#lengths[head]!
    this.#types[head] = undefined
    this.#sessions[head] = undefined
    this.#slabs[head] = undefined
    this.#head++
    // Compact now and then, so the arrays do not grow with every event ever held.
    if (this.#head >= 4096 && this.#head * 2 >= this.#types.length) {
      this.#types = this.#types.slice(this.#head)
      this.#sessions = this.#sessions.slice(this.#head)
      this.#slabs = this.#slabs.slice(this.#head)
      this.#offsets = this.#offsets.slice(this.#head)
      this.#lengths = this.#lengths.slice(this.#head)
      this.#head = 0
    }
  }

  /** Drops every one (the next frame starts a new slab). */
  clear(): void {
    this.#types = []
    this.#sessions = []
    this.#slabs = []
    this.#offsets = []
    this.#lengths = []
    this.#head = 0
    this.#bytes = 0
    this.#slab = undefined
    this.#used = 0
  }

  /** The held events from the `from`th oldest to before the `to`th, the oldest numbered `firstSeq`. */
  slice(from: number, to: number, firstSeq: number): LoggedEvent[] {
    const events: LoggedEvent[] = []
    for (let index = from; index < Math.min(to, this.size); index++) {
      const at = this.#head + index
      const offset = this.#offsets[at]!
      events.push(
        new HeldEvent(
          firstSeq + index,
          this.#types[at]!,
          this.#sessions[at],
          this.#slabs[at]!.subarray(offset, offset + this.#lengths[at]!),
        ),
      )
    }
    return events
  }
}
