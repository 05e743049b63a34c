// The loop guard served over MCP to a client that cannot show asks (no elicitation), as opencode is.
import { appendFile, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { connectStdio, makeProject, type Project, type StdioConnected, textOf } from "./helpers.ts"

describe("toolbelt mcp: the loop guard with a client that cannot ask", () => {
  let project: Project
  let server: StdioConnected

  beforeAll(async () => {
    project = await makeProject({ batch: true })
    await writeFile(join(project.dir, "a.txt"), "hello\n")
    server = await connectStdio(project)
  })

  afterAll(async () => {
    await server?.close()
    await project?.remove()
  })

  const read = (file: string) => server.client.callTool({ name: "read", arguments: { filePath: file } })

  it("reads of a file that changes in between are never refused", async () => {
    for (let i = 0; i < 6; i++) {
      await appendFile(join(project.dir, "a.txt"), `line ${i}\n`)
      const result = await read("a.txt")
      expect(result.isError).toBeFalsy()
    }
  })

  it("the 3rd identical read of an unchanged file is refused in one sentence naming the rule and the fix", async () => {
    await writeFile(join(project.dir, "b.txt"), "same\n")
    expect((await read("b.txt")).isError).toBeFalsy()
    expect((await read("b.txt")).isError).toBeFalsy()
    const third = await read("b.txt")
    expect(third.isError).toBe(true)
    const text = textOf(third)
    expect(text).toBe(
      'The loop guard stopped this call: read {"filePath":"b.txt"}: it was the 3rd identical call in a row and the 2 before it got the same result, and the rule "doom_loop": "ask" (permission.doom_loop in toolbelt\'s defaults) needs a person\'s approval for that, but no one could be asked; to allow it, set "doom_loop": {"threshold": N} with N above 3, or "permission": {"doom_loop": "allow"}, in your ~/.config/toolbelt/toolbelt.json (or the project\'s toolbelt.json, once the project is trusted), or try something else.',
    )
    expect(text).not.toMatch(/user rejected/i)
  })

  it("a batch whose call the loop guard refused says the loop guard stopped it, not that the user rejected it", async () => {
    const say = { command: "echo same", description: "Say the same" }
    const bash = () => server.client.callTool({ name: "bash", arguments: say })
    expect((await bash()).isError).toBeFalsy()
    expect((await bash()).isError).toBeFalsy()
    const batch = await server.client.callTool({
      name: "batch",
      arguments: { tool_calls: [{ tool: "bash", parameters: say }] },
    })
    expect(batch.isError).toBe(true)
    const text = textOf(batch)
    expect(text).toMatch(
      /^The loop guard stopped this call: bash \{"command":"echo same","description":"Say the same"\}: /,
    )
    expect(text).toContain("it was the 3rd identical call in a row")
    expect(text).toContain("no one could be asked")
    expect(text).not.toMatch(/user rejected/i)
  })
})
