import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { expect, it } from "vitest"
import { internals } from "../../compose/internals.ts"
import { createToolbelt } from "../../compose/toolbelt.ts"

it("turns a call that could not be parsed into a readable result, and is never advertised", async () => {
  const dir = await mkdtemp(join(tmpdir(), "toolbelt-invalid-"))
  const toolbelt = await createToolbelt({
    directory: dir,
    dataDir: join(dir, "data"),
    config: {},
    sweep: false,
  })
  const result = await toolbelt.call({
    tool: "invalid",
    input: { tool: "edit", error: "JSON parse error: Unexpected token } at position 12" },
  })
  expect(result).toMatchObject({
    status: "completed",
    title: "Invalid Tool",
    output:
      "The arguments provided to the tool are invalid: JSON parse error: Unexpected token } at position 12",
  })
  const advertised = await internals(toolbelt).registry.tools({ agent: "build", client: "cli" })
  expect(advertised.map((tool) => tool.name)).not.toContain("invalid")
  expect(internals(toolbelt).registry.ids()).toContain("invalid")
  toolbelt.close()
  await rm(dir, { recursive: true, force: true })
})
