// The loop guard with calls of one session running side by side (an agent's parallel calls, an MCP
// client with 16 in flight): "in a row" is the order the calls were made, not the order they finished.
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, expect, it } from "vitest"
import { z } from "zod"
import { createToolbelt, type Toolbelt } from "../src/compose/toolbelt.ts"
import * as Tool from "../src/runtime/tool/index.ts"

let dir: string
let toolbelt: Toolbelt
/** Calls of `slow` wait here until the test lets them finish. */
let release: () => void
let released: Promise<void>

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolbelt-loop-parallel-"))
  ;({ promise: released, resolve: release } = Promise.withResolvers<void>())
  toolbelt = await createToolbelt({
    directory: dir,
    dataDir: join(dir, ".data"),
    store: "memory",
    sweep: false,
    // A loop is refused outright: no one here would answer the ask.
    config: { permission: { doom_loop: "deny" } },
  })
  toolbelt.register({
    look: Tool.make({
      description: "Looks at a thing (read-only); `slow` ones wait to be let go.",
      input: z.object({ at: z.string(), slow: z.boolean().optional() }),
      annotations: { readOnly: true },
      execute: async ({ at, slow }) => {
        if (slow) await released
        return `the same view of ${at}`
      },
    }),
  })
})

afterEach(async () => {
  toolbelt.close()
  await rm(dir, { recursive: true, force: true })
})

const look = (at: string, slow = false, session = "ses_parallel") =>
  toolbelt.call({ tool: "look", input: { at, ...(slow ? { slow } : {}) }, sessionID: session })

it("made a, b, a, b, a, the b's still running when the last a is made: no a repeats the one before it", async () => {
  const first = [look("a"), look("b", true), look("a"), look("b", true)]
  // Both a's have finished, one after another; the b's made between them still run.
  expect((await first[0])?.status).toBe("completed")
  expect((await first[2])?.status).toBe("completed")
  const last = await look("a")
  release()
  const settled = [...(await Promise.all(first)), last]
  expect(settled.map((result) => result.status)).toEqual(Array(5).fill("completed"))
})

it("the same call made after three of it that ran side by side is refused: they were made in a row", async () => {
  const calls = [look("c", true), look("c", true), look("c", true)]
  release()
  await Promise.all(calls)
  const fourth = await look("c", true)
  expect(fourth.status).toBe("error")
  expect(fourth.status === "error" && fourth.error).toMatch(/loop guard stopped this call/)
})
