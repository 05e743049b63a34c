import { afterEach, describe, expect, it } from "vitest"
import { part, running, tempDirs, watchStatements } from "./fixtures/helpers.ts"
import { GroupCommit } from "./group-commit.ts"
import { Journal } from "./journal.ts"
import { Owners } from "./owners.ts"
import { PartRows } from "./parts.ts"
import { openStore, type Store } from "./store.ts"

const dirs = tempDirs()
const stores: Store[] = []
afterEach(() => {
  for (const store of stores.splice(0)) store.close()
  dirs.cleanup()
})

describe("a call's part in the journal's batch", () => {
  it("is not looked for when the request's id was minted for it (fresh), and is otherwise", async () => {
    const store = openStore({ dataDir: dirs.make() })
    stores.push(store)
    let reads = 0
    const db = watchStatements(store.db, /^SELECT p\.data/, (method) => {
      if (method === "get") reads++
    })
    const rows = new PartRows(db)
    const journal = new Journal(db, rows, new Owners(db), new GroupCommit(db))
    await journal.requested(part("call_fresh"), { fresh: true })
    expect(reads).toBe(0)
    await journal.requested(part("call_given"))
    expect(reads).toBe(1)
    // Only a request is taken for new: a later step looks its part up.
    await journal.started(part("call_fresh", running()), { fresh: true })
    expect(reads).toBe(2)
    expect(rows.read("ses_test", "call_fresh")?.part.state.status).toBe("running")
    expect(rows.read("ses_test", "call_given")?.part.state.status).toBe("pending")
  })
})
