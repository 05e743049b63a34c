// The store's event table on each engine: appends numbered in order after the newest, reads after a
// seq, and retention that keeps the newest (numbering goes on from it) and drops the old.
import { expect, it } from "vitest"
import { StoreEvents } from "../../src/platform/store/events.ts"
import { engines } from "../../src/platform/store/fixtures/engines.ts"
import { openStore } from "../../src/platform/store/store.ts"
import { EventLog } from "../../src/surfaces/http/event-log.ts"

for (const engine of await engines()) {
  it(`${engine.name}: appends in order, reads after a seq, prunes by count and age`, () => {
    const location = engine.location()
    const store = openStore(location)
    try {
      const events = new StoreEvents(store.db)
      const one = (n: number) => ({ type: "todo.updated", session: `ses_${n % 2}`, data: `{"n":${n}}` })
      expect(events.newest()).toBe(0)
      expect(events.append([one(1), one(2)], 1000)).toBe(2)
      expect(events.append([one(3)], 2000)).toBe(3)
      expect(events.after(1, 10).map((event) => [event.seq, event.session, event.data])).toEqual([
        [2, "ses_0", '{"n":2}'],
        [3, "ses_1", '{"n":3}'],
      ])
      // Count: the newest 2 stay.
      expect(events.prune(2, 60_000, 3000)).toBe(1)
      expect(events.oldest()).toBe(2)
      // Age: everything older than the limit goes, but the newest stays so numbers go on.
      expect(events.prune(100, 10, 100_000)).toBe(1)
      expect(events.oldest()).toBe(3)
      expect(events.append([one(4)])).toBe(4)
      // One identity per store, the same for every connection.
      const again = openStore(location)
      try {
        expect(new StoreEvents(again.db).identity()).toBe(events.identity())
        expect(events.identity()).toMatch(/^[0-9a-f]{16}$/)
      } finally {
        again.close()
      }
    } finally {
      store.close()
    }
  })
}

it("an event log fed by put numbers events as given and backfills what it no longer holds", () => {
  const table = new Map<number, string>()
  const log = new EventLog({
    epoch: "store1",
    capacity: 2,
    backfill: (seq, max) =>
      [...table.entries()]
        .filter(([n]) => n > seq)
        .slice(0, max)
        .map(([n, data]) => ({
          seq: n,
          type: "t",
          session: undefined,
          frame: `id: store1.${n}\ndata: ${data}\n\n`,
        })),
  })
  log.startAt(11)
  for (let n = 11; n <= 14; n++) {
    table.set(n, `{"n":${n}}`)
    log.put(n, "t", undefined, `{"n":${n}}`)
  }
  log.put(12, "t", undefined, "again") // already had: ignored
  expect(log.last).toBe(14)
  expect(log.size).toBe(2)
  expect(log.position("store1.12")).toBe(12)
  expect(log.after(12, 10)?.map((event) => event.seq)).toEqual([13, 14])
  // 11 and 12 left memory: from the table.
  expect(log.after(10, 10)?.map((event) => event.frame)).toEqual([
    'id: store1.11\ndata: {"n":11}\n\n',
    'id: store1.12\ndata: {"n":12}\n\n',
  ])
  table.delete(11)
  expect(log.after(10, 10)).toBeUndefined()
  expect(log.position("other.12")).toBeUndefined()
  log.close()
})
