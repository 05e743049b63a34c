// Spec 003's law that structured output is bounded, end to end: a tool returning about 6 MB of
// structured output, called through `toolbelt mcp` over stdio with the official MCP client (which checks
// structuredContent against the listed output schema), answers with a bounded preview, not an error.
import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { connectStdio, makeProject, type Project, type StdioConnected } from "../mcp/helpers.ts"
import { Report } from "./fixtures/big-output-plugin.ts"

const plugin = join(import.meta.dirname, "fixtures", "big-output-plugin.ts")

describe("a 6 MB structured output over MCP", { timeout: 120_000 }, () => {
  let project: Project
  let server: StdioConnected

  beforeAll(async () => {
    project = await makeProject({ plugin: [plugin] })
    server = await connectStdio(project)
  })

  afterAll(async () => {
    await server?.close()
    await project?.remove()
  })

  it("reaches the client bounded, fitting its schema, with isError false and where the whole is", async () => {
    const { tools } = await server.client.listTools()
    expect(tools.find((tool) => tool.name === "report")?.outputSchema).toMatchObject({ type: "object" })
    const result = await server.client.callTool({ name: "report", arguments: {} })
    expect(result.isError ?? false).toBe(false)
    const structured = result.structuredContent as { total: number; items: { id: number }[]; log: string }
    const size = Buffer.byteLength(JSON.stringify(structured))
    expect(size).toBeLessThanOrEqual(51_200)
    expect(Report.safeParse(structured).success).toBe(true)
    expect(structured.total).toBe(40_000)
    expect(structured.items[0]).toMatchObject({ id: 0, path: "src/module-0/index.ts" })
    expect(structured.items.length).toBeLessThan(40_000)

    // The model's text: the preview, then what was cut and where the whole is.
    const text = (result.content as { type: string; text: string }[]).map((block) => block.text).join("\n")
    expect(Buffer.byteLength(text)).toBeLessThan(60_000)
    expect(text).toMatch(/items: first \d+ of 40000 items/)
    const path = /The whole is saved at (\S+?);/.exec(text)?.[1]
    expect(path).toBeDefined()
    const whole = JSON.parse(await readFile(path!, "utf8")) as { items: unknown[]; log: string }
    expect(whole.items).toHaveLength(40_000)
    expect(whole.log).toHaveLength(600_000)
    console.log(
      `structured: ${Buffer.byteLength(JSON.stringify(whole))} bytes whole, ${size} bytes sent, ${structured.items.length} of 40000 items`,
    )
  })
})
