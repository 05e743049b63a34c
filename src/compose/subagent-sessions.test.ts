import { afterEach, describe, expect, it } from "vitest"
import { openStore, type Store } from "../platform/store/store.ts"
import { SubagentSessions } from "./subagent-sessions.ts"

let store: Store | undefined
afterEach(() => {
  store?.close()
  store = undefined
})

function sessions() {
  store = openStore({ path: ":memory:" })
  const deny = { permission: "task", pattern: "*", action: "deny" as const }
  store.sessions.create({ id: "ses_top", projectID: "/p", agent: "build" })
  store.sessions.create({
    id: "ses_child",
    projectID: "/p",
    agent: "general",
    parentID: "ses_top",
    permission: [deny],
  })
  store.sessions.create({
    id: "ses_grand",
    projectID: "/p",
    agent: "explore",
    parentID: "ses_child",
    permission: [],
  })
  return { known: new SubagentSessions(store), deny }
}

describe("SubagentSessions", () => {
  it("gives a subagent session's own rules (the same array each time), none to others", () => {
    const { known, deny } = sessions()
    expect(known.rules("ses_child")).toEqual([deny])
    expect(known.rules("ses_child")).toBe(known.rules("ses_child"))
    expect(known.rules("ses_top")).toEqual([])
    expect(known.rules("ses_no_row")).toEqual([])
  })

  it("counts the sessions above one", () => {
    const { known } = sessions()
    expect([
      known.depth("ses_top"),
      known.depth("ses_child"),
      known.depth("ses_grand"),
      known.depth("x"),
    ]).toEqual([0, 1, 2, 0])
  })

  it("names the subagent running in a session and the call at the top of its nest, until it stops", () => {
    const { known } = sessions()
    const stopChild = known.running("ses_child", {
      agent: "general",
      description: "outer",
      parent: { sessionID: "ses_top", callID: "t1" },
    })
    known.running("ses_grand", {
      agent: "explore",
      description: "inner",
      parent: { sessionID: "ses_child", callID: "t2" },
    })
    expect(known.subagentOf("ses_grand")).toEqual({
      agent: "explore",
      description: "inner",
      parent: { sessionID: "ses_child", callID: "t2" },
      root: { sessionID: "ses_top", callID: "t1" },
    })
    expect(known.subagentOf("ses_top")).toBeUndefined()
    stopChild()
    expect(known.subagentOf("ses_child")).toBeUndefined()
  })
})

describe("SubagentSessions.constraints", () => {
  const held = (agent: string) => [[{ permission: "held-by", pattern: agent, action: "deny" as const }]]

  it("none for a top session; a subagent's own denials, then each ancestor's whole policy up to the top", () => {
    const { known, deny } = sessions()
    expect(known.constraints("ses_top", held)).toEqual([])
    expect(known.constraints("ses_child", held)).toEqual([[deny], ...held("build")])
    // The grandchild: its parent ran as general (the parent's row), and general's parent as build.
    expect(known.constraints("ses_grand", held)).toEqual([...held("general"), [deny], ...held("build")])
  })

  it("uses the agent the parent ran as when it started the subagent, over the parent's row", () => {
    const { known } = sessions()
    known.adopt("ses_child", "plan")
    expect(known.constraints("ses_child", held)).toContainEqual(held("plan")[0])
    expect(known.constraints("ses_child", held)).not.toContainEqual(held("build")[0])
  })
})
