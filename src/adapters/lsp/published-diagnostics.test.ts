import { describe, expect, it } from "vitest"
import type { Diagnostic } from "vscode-languageserver-types"
import { PublishedDiagnostics } from "./published-diagnostics.ts"

const d = (message: string): Diagnostic => ({
  range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } },
  message,
})
const later = (ms: number, run: () => void) => setTimeout(run, ms)
const far = () => Date.now() + 10_000

describe("PublishedDiagnostics.after", () => {
  it("waits past what was published before the change, and takes the last publish of a round", async () => {
    const store = new PublishedDiagnostics({ quietMs: 50 })
    store.publish("/a.ts", [d("old")], undefined)
    const mark = store.mark("/a.ts", 2)
    later(10, () => store.publish("/a.ts", [], undefined))
    later(30, () => store.publish("/a.ts", [d("type error")], undefined))
    expect(await store.after(mark, far())).toEqual([d("type error")])
  })

  it("ignores publishes for an older version when the server gives versions", async () => {
    const store = new PublishedDiagnostics({ quietMs: 20 })
    const mark = store.mark("/a.py", 3)
    later(5, () => store.publish("/a.py", [d("stale")], 2))
    later(40, () => store.publish("/a.py", [d("fresh")], 3))
    expect(await store.after(mark, far())).toEqual([d("fresh")])
  })

  it("at the deadline: the newest publish after the change, or nothing when none came", async () => {
    const store = new PublishedDiagnostics({ quietMs: 10_000 })
    const mark = store.mark("/a.ts", 1)
    later(5, () => store.publish("/a.ts", [d("early")], undefined))
    expect(await store.after(mark, Date.now() + 100)).toEqual([d("early")])
    expect(await store.after(store.mark("/b.ts", 1), Date.now() + 50)).toBeUndefined()
  })

  it("an abort ends the wait with what there is", async () => {
    const store = new PublishedDiagnostics()
    const abort = new AbortController()
    later(20, () => abort.abort())
    expect(await store.after(store.mark("/a.ts", 1), far(), abort.signal)).toBeUndefined()
  })

  it("keeps each file's last list", () => {
    const store = new PublishedDiagnostics()
    store.publish("/a.ts", [d("one")], undefined)
    store.publish("/a.ts", [d("two")], undefined)
    store.publish("/b.ts", [], undefined)
    expect(store.current("/a.ts")).toEqual([d("two")])
    expect(store.all()).toEqual(
      new Map([
        ["/a.ts", [d("two")]],
        ["/b.ts", []],
      ]),
    )
  })
})
