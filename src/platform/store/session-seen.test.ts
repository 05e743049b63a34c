import { describe, expect, it } from "vitest"
import { engines } from "./fixtures/engines.ts"
import { openStore } from "./store.ts"

for (const engine of await engines())
  describe(`SessionSeen (${engine.name})`, () => {
    const dataDir = () => engine.location()

    it("is true once per session and key, before and after the commit", () => {
      using store = openStore(dataDir())
      expect(store.seen.firstTime("ses_a", "k")).toBe(true)
      expect(store.seen.firstTime("ses_a", "k")).toBe(false)
      expect(store.seen.firstTime("ses_b", "k")).toBe(true)
      expect(store.seen.firstTime("ses_a", "other")).toBe(true)
      store.readLedger.list("ses_a")
      expect(store.seen.firstTime("ses_a", "k")).toBe(false)
    })

    it("another store on the same file sees what this one recorded once it is committed", () => {
      const dir = dataDir()
      const first = openStore(dir)
      expect(first.seen.firstTime("ses_a", "instructions:/p/AGENTS.md")).toBe(true)
      first.close()
      using second = openStore(dir)
      expect(second.seen.firstTime("ses_a", "instructions:/p/AGENTS.md")).toBe(false)
      expect(second.seen.firstTime("ses_b", "instructions:/p/AGENTS.md")).toBe(true)
    })

    it("removing a session forgets what it saw", () => {
      using store = openStore(dataDir())
      store.sessions.create({ id: "ses_a", projectID: "/p", agent: "build" })
      store.seen.firstTime("ses_a", "k")
      store.readLedger.list("ses_a")
      store.sessions.remove("ses_a")
      expect(store.seen.firstTime("ses_a", "k")).toBe(true)
    })
  })
