import { describe, expect, it } from "vitest"
import { TrailingCommits } from "./trailing-commits.ts"

const turn = () => new Promise((resolve) => setImmediate(resolve))
const turns = async (count: number) => {
  for (let i = 0; i < count; i++) await turn()
}

/** A client's calls as the journal's sink reports them, with a clock the test moves. */
function harness() {
  let open = 0
  let commits = 0
  const trailing = new TrailingCommits(
    () => commits++,
    () => open,
  )
  return {
    arrive: () => {
      trailing.arrived()
      open++
    },
    finish: () => {
      open--
      trailing.trailed()
    },
    get commits() {
      return commits
    },
  }
}

describe("TrailingCommits", () => {
  it("commits a lone call's records two turns of the loop after it finished", async () => {
    const client = harness()
    client.arrive()
    client.finish()
    expect(client.commits).toBe(0)
    await turn()
    expect(client.commits).toBe(0)
    await turn()
    expect(client.commits).toBe(1)
    await turns(3)
    expect(client.commits).toBe(1)
  })

  it("waits while a call that arrived meanwhile is open, and leaves the commit to it", async () => {
    const client = harness()
    client.arrive()
    client.finish()
    await turn()
    client.arrive()
    await turns(4)
    expect(client.commits).toBe(0)
    client.finish()
    await turns(2)
    expect(client.commits).toBe(1)
  })

  it("looks again when a call arrived and finished before the process was quiet", async () => {
    const client = harness()
    client.arrive()
    client.finish()
    await turn()
    client.arrive()
    client.finish()
    await turn()
    // The first look saw a call arrive: no commit yet, a second look follows.
    expect(client.commits).toBe(0)
    await turns(2)
    expect(client.commits).toBe(1)
  })

  it("commits calls in flight together once, when the last one has closed", async () => {
    const client = harness()
    client.arrive()
    client.arrive()
    client.finish()
    await turns(4)
    expect(client.commits).toBe(0)
    client.finish()
    await turns(2)
    expect(client.commits).toBe(1)
  })
})
