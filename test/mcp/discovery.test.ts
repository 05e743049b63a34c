// What a client discovers beyond the tools: no resources and no prompts, said as empty lists (clients
// such as opencode and Cline list both on connect and may drop a server that answers "Method not
// found"), and nothing claimed that toolbelt does not do (logging, completions, subscriptions).
import { ProtocolError, ResourceNotFoundError } from "@modelcontextprotocol/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type Connected,
  connectHttp,
  connectStdio,
  type HttpServer,
  makeProject,
  type Project,
  startHttp,
} from "./helpers.ts"
import { initialize, initialized, stdioLines } from "./raw.ts"

describe.each(["stdio", "http"] as const)("discovery over %s", (transport) => {
  let project: Project
  let server: HttpServer | undefined
  let client: Connected

  beforeAll(async () => {
    project = await makeProject()
    if (transport === "http") {
      server = await startHttp(project)
      client = await connectHttp(server.url)
    } else {
      client = await connectStdio(project)
    }
  })

  afterAll(async () => {
    await client?.close()
    if (server) expect(await server.stop()).toBe(0)
    await project?.remove()
  })

  it("declares tools, and resources and prompts whose lists never change, and nothing else", () => {
    expect(client.client.getServerCapabilities()).toEqual({
      tools: { listChanged: true },
      resources: { listChanged: false },
      prompts: { listChanged: false },
    })
  })

  it("lists no resources, no resource templates and no prompts", async () => {
    expect((await client.client.listResources()).resources).toEqual([])
    expect((await client.client.listResourceTemplates()).resourceTemplates).toEqual([])
    expect((await client.client.listPrompts()).prompts).toEqual([])
  })

  it("answers a read of any resource with not found", async () => {
    const read = client.client.readResource({ uri: "file:///etc/hostname" })
    await expect(read).rejects.toBeInstanceOf(ResourceNotFoundError)
    await expect(read).rejects.toMatchObject({ code: -32602, data: { uri: "file:///etc/hostname" } })
  })

  it("answers a get of any prompt with invalid params, naming it", async () => {
    const get = client.client.getPrompt({ name: "review" })
    await expect(get).rejects.toBeInstanceOf(ProtocolError)
    await expect(get).rejects.toMatchObject({ code: -32602, message: expect.stringContaining("review") })
  })
})

describe("discovery by a client that ignores the capabilities", () => {
  let project: Project

  beforeAll(async () => {
    project = await makeProject()
  })

  afterAll(async () => {
    await project?.remove()
  })

  it("gets empty lists where it lists, and Method not found for what is not offered", async () => {
    const lines = stdioLines(project)
    try {
      lines.send(initialize("2025-06-18"))
      await lines.next()
      lines.send(initialized)
      const ask = async (id: number, method: string, params: object = {}) => {
        lines.send({ jsonrpc: "2.0", id, method, params })
        return (await lines.next()) as { result?: unknown; error?: { code: number } }
      }
      expect((await ask(2, "resources/list")).result).toEqual({ resources: [] })
      expect((await ask(3, "resources/templates/list")).result).toEqual({ resourceTemplates: [] })
      expect((await ask(4, "prompts/list")).result).toEqual({ prompts: [] })
      expect((await ask(5, "logging/setLevel", { level: "info" })).error?.code).toBe(-32601)
      expect((await ask(6, "resources/subscribe", { uri: "file:///x" })).error?.code).toBe(-32601)
      const complete = { ref: { type: "ref/prompt", name: "review" }, argument: { name: "a", value: "" } }
      expect((await ask(7, "completion/complete", complete)).error?.code).toBe(-32601)
    } finally {
      await lines.stop()
    }
  })
})
