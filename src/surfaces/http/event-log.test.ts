// The server's event log keeps what it holds inside its bounds: the count, and the characters of its
// frames (large outputs), dropping the oldest; what it still holds resumes exactly.
import { afterEach, describe, expect, it } from "vitest"
import { completed, part } from "../../platform/store/fixtures/helpers.ts"
import { Bus } from "../../runtime/bus/bus.ts"
import { EventLog } from "./event-log.ts"

let log: EventLog | undefined
afterEach(() => {
  log?.close()
  log = undefined
})

async function publish(bus: Bus, count: number, size: number): Promise<void> {
  for (let index = 0; index < count; index++) {
    bus.publish("message.part.updated", {
      part: part(`call_${index}`, completed(`${index} `.padEnd(size, "x")), "ses_log"),
    })
  }
  await bus.idle()
}

describe("EventLog bounds", () => {
  it("holds at most 16 MiB of frames by default: 1,000 outputs of 45 KB keep only the newest", async () => {
    const bus = new Bus()
    log = new EventLog({ bus })
    await publish(bus, 1000, 45_000)

    expect(log.last).toBe(1000)
    expect(log.bytes).toBeLessThanOrEqual(16 * 1024 * 1024)
    // Nearly all of the budget is used: the oldest went, not more.
    expect(log.bytes).toBeGreaterThan(16 * 1024 * 1024 - 46_000)
    expect(log.size).toBeGreaterThan(350)
    expect(log.size).toBeLessThan(380)
    // The dropped ones cannot be resumed from; the held ones are exactly what came after.
    expect(log.after(0, 10)).toBeUndefined()
    const first = log.last - log.size
    const held = log.after(first, 5)!
    expect(held.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5].map((step) => first + step))
    expect(held[0]!.frame.startsWith(`id: ${log.id(first + 1)}\ndata: `)).toBe(true)
    expect(held[0]!.frame).toContain(`"callID":"call_${first}"`)
  })

  it("holds at most `capacity` events, however small, and keeps numbering past the dropped", async () => {
    const bus = new Bus()
    log = new EventLog({ bus, capacity: 100 })
    await publish(bus, 1000, 10)

    expect(log.size).toBe(100)
    expect(log.last).toBe(1000)
    expect(log.after(899, 1)).toBeUndefined()
    expect(log.after(900, 200)!.map((event) => event.seq)).toEqual(
      Array.from({ length: 100 }, (_, index) => 901 + index),
    )
    const frames = log.after(900, 200)!.reduce((sum, event) => sum + event.frame.length, 0)
    expect(log.bytes).toBe(frames)
  })

  it("keeps alive no more than its budget counts, give or take two slabs: nothing shared with other buffers", async () => {
    const bus = new Bus()
    log = new EventLog({ bus, maxBytes: 200_000 })
    // Small frames, with other small buffers made between them (as the SSE chunks and the HTTP
    // layer make them): a frame cut from Node's shared pool would keep a whole 64 KiB slab alive.
    const others: Buffer[] = []
    for (let index = 0; index < 2000; index++) {
      bus.publish("message.part.updated", { part: part(`call_${index}`, completed(`${index}`), "ses_log") })
      others.push(Buffer.from(`unrelated ${index}`))
    }
    await bus.idle()
    const held = log.after(log.last - log.size, log.size)!
    expect(held.length).toBeGreaterThan(100)
    const backing = new Set(held.map((event) => event.bytes!.buffer))
    let kept = 0
    for (const buffer of backing) kept += buffer.byteLength
    expect(log.bytes).toBeLessThanOrEqual(200_000)
    // Slabs are 1/32 of the budget; each has less than 1/16 of it left unused at its end.
    expect(kept).toBeLessThanOrEqual(log.bytes * (1 + 1 / 16) + (2 * 200_000) / 32)
    expect(others).toHaveLength(2000)
  })

  it("a frame handed out never changes, however many events come and go after it", async () => {
    const bus = new Bus()
    log = new EventLog({ bus, capacity: 50 })
    await publish(bus, 10, 100)
    const early = log.after(0, 10)!
    const copies = early.map((event) => Buffer.from(event.bytes!))
    await publish(bus, 5000, 100)
    expect(log.after(0, 1)).toBeUndefined()
    early.forEach((event, index) => {
      expect(Buffer.compare(Buffer.from(event.bytes!), copies[index]!)).toBe(0)
      expect(event.frame).toContain(`"callID":"call_${index}"`)
    })
  })

  it("keeps a single frame larger than the byte budget, alone", async () => {
    const bus = new Bus()
    log = new EventLog({ bus, maxBytes: 10_000 })
    await publish(bus, 3, 50_000)

    expect(log.size).toBe(1)
    expect(log.after(2, 10)!.map((event) => event.seq)).toEqual([3])
  })
})
