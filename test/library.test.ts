import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createToolbelt, Tool } from "agent-toolbelt"
import { expect, it } from "vitest"
import { z } from "zod"

it("the README's library quick start works through the package's own exports", async () => {
  const dir = await mkdtemp(join(tmpdir(), "toolbelt-lib-"))
  const toolbelt = await createToolbelt({ directory: dir, dataDir: join(dir, "data"), config: {} })
  toolbelt.register({
    greet: Tool.make({
      description: "Greets someone.",
      input: z.object({ name: z.string().describe("who to greet") }),
      execute: ({ name }) => `hello ${name}`,
    }),
  })
  const result = await toolbelt.call({ tool: "greet", input: { name: "ada" } })
  expect(result).toMatchObject({
    status: "completed",
    title: "greet",
    output: "hello ada",
    metadata: { truncated: false },
  })
  toolbelt.close()
  await rm(dir, { recursive: true, force: true })
})
