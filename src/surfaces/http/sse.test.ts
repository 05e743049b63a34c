// What one SSE client can hold: a chunk per read of its stream, however large the frames; and how
// many read at once: one too many closes the one furthest behind, telling it where to resume from.
import { afterEach, describe, expect, it } from "vitest"
import { completed, part } from "../../platform/store/fixtures/helpers.ts"
import { Bus } from "../../runtime/bus/bus.ts"
import { EventLog } from "./event-log.ts"
import { CHUNK_CHARS, CLOSED_EVENT, eventStream } from "./sse.ts"

let log: EventLog | undefined
afterEach(() => {
  log?.close()
  log = undefined
})

async function publish(bus: Bus, count: number, output: string): Promise<void> {
  for (let index = 0; index < count; index++) {
    bus.publish("message.part.updated", {
      part: part(`call_${index}`, completed(`${index} ${output}`), "ses_sse"),
    })
  }
  await bus.idle()
}

describe("eventStream", () => {
  it("hands its connection at most a chunk per read, a large frame in pieces that join up exactly", async () => {
    const bus = new Bus()
    log = new EventLog({ bus })
    // Surrogate pairs all along: a piece cut between the two halves of one would not decode.
    await publish(bus, 12, "😀".repeat(100_000))
    const stream = eventStream({ log, lastEventID: log.id(0) })
    const reader = stream.getReader()
    const decoder = new TextDecoder("utf-8", { fatal: true })
    let text = ""
    let largest = 0
    const last = `id: ${log.id(12)}\n`
    let seenLast = false
    while (!seenLast || !text.endsWith("\n\n")) {
      const { value } = await reader.read()
      largest = Math.max(largest, value!.length)
      const piece = decoder.decode(value!, { stream: true })
      seenLast ||= piece.includes(last)
      text += piece
    }
    await reader.cancel()
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    expect(largest).toBeLessThanOrEqual(CHUNK_CHARS * 3)
    const frames = text.split("\n\n").filter((frame) => frame.startsWith("id: "))
    expect(frames).toHaveLength(12)
    expect(frames.map((frame) => `${frame}\n\n`)).toEqual(log.after(0, 12)!.map((event) => event.frame))
  })

  it("a burst of events reaches a waiting client in one piece, and the next burst soon after, in order", async () => {
    const bus = new Bus()
    log = new EventLog({ bus })
    const reader = eventStream({ log }).getReader()
    const decoder = new TextDecoder()
    const hello = decoder.decode((await reader.read()).value!)
    expect(hello).toContain("server.connected")
    const ids = (text: string) => [...text.matchAll(/^id: \S+\.(\d+)$/gm)].map((match) => Number(match[1]))

    // Waiting for news when 50 events are published at once (one commit's calls, say): one write.
    const next = reader.read()
    for (let index = 0; index < 50; index++) {
      bus.publish("message.part.updated", { part: part(`call_${index}`, completed(`${index}`), "ses_sse") })
    }
    expect(ids(decoder.decode((await next).value!))).toEqual(Array.from({ length: 50 }, (_, i) => i + 1))
    // The next burst right after it is not lost to the gap between wakes: it comes without any
    // event after it to carry it.
    const later = reader.read()
    for (let index = 50; index < 53; index++) {
      bus.publish("message.part.updated", { part: part(`call_${index}`, completed(`${index}`), "ses_sse") })
    }
    expect(ids(decoder.decode((await later).value!))).toEqual([51, 52, 53])
    await reader.cancel()
  })

  it("hands on exactly the frames the log holds, whole batches as they lie in its memory or filtered by session", async () => {
    const bus = new Bus()
    log = new EventLog({ bus })
    for (let index = 0; index < 300; index++) {
      const session = index % 3 === 0 ? "ses_mine" : "ses_other"
      bus.publish("message.part.updated", { part: part(`call_${index}`, completed(`${index} é`), session) })
    }
    await bus.idle()
    const read = async (sessions?: string[]) => {
      const reader = eventStream({
        log: log!,
        lastEventID: log!.id(0),
        ...(sessions ? { sessions } : {}),
      }).getReader()
      const decoder = new TextDecoder()
      let text = ""
      while (!text.includes(`id: ${log!.id(sessions ? 298 : 300)}\n`) || !text.endsWith("\n\n")) {
        text += decoder.decode((await reader.read()).value!, { stream: true })
      }
      await reader.cancel()
      return text.split(/(?<=\n\n)/).filter((frame) => frame.startsWith("id: "))
    }
    const held = log.after(0, 300)!
    expect(await read()).toEqual(held.map((event) => event.frame))
    expect(await read(["ses_mine"])).toEqual(
      held.filter((event) => event.session === "ses_mine").map((event) => event.frame),
    )
  })

  it("one reader too many closes the one that stopped reading, saying why and where to resume from", async () => {
    const bus = new Bus()
    log = new EventLog({ bus, maxReaders: 2 })
    await publish(bus, 5, "x".repeat(200_000))
    const dropped: string[] = []
    const open = (name: string) => {
      const reader = eventStream({
        log: log!,
        lastEventID: log!.id(0),
        disconnect: () => dropped.push(name),
      }).getReader()
      return reader
    }
    // Stalled: it read one chunk, then never again.
    const stalled = open("stalled")
    await stalled.read()
    await stalled.read()
    // Keeping up: it waits for more.
    const live = open("live")
    const decoder = new TextDecoder()
    let liveText = ""
    while (!liveText.includes(`id: ${log.id(5)}\n`) || !liveText.endsWith("\n\n"))
      liveText += decoder.decode((await live.read()).value!)
    const waiting = live.read()
    expect(log.readers).toBe(2)

    const third = open("third")
    expect(log.readers).toBe(2)
    // The stalled one is closed: its connection is dropped, and what was queued for it says why.
    expect(dropped).toEqual(["stalled"])
    let stalledText = ""
    for (;;) {
      const { value, done } = await stalled.read()
      if (done) break
      stalledText += decoder.decode(value)
    }
    const closing = stalledText.slice(stalledText.lastIndexOf("data: "))
    const closed = JSON.parse(closing.slice("data: ".length)) as {
      type: string
      properties: { reason: string; resume: string }
    }
    expect(closed.type).toBe(CLOSED_EVENT)
    expect(closed.properties.reason).toContain("furthest behind")
    expect(closed.properties.resume).toMatch(new RegExp(`^${log.epoch}\\.\\d+$`))
    // The others go on: the live one gets the next event.
    await publish(bus, 1, "y")
    expect(decoder.decode((await waiting).value!)).toContain(`id: ${log.id(6)}\n`)
    await live.cancel()
    await third.cancel()
    expect(log.readers).toBe(0)
  })
})
