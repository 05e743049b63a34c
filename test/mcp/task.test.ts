// `task` over MCP: a client that samples runs the subagent's model calls; its asks come back as forms.
import { writeFile } from "node:fs/promises"
import { join } from "node:path"
import {
  type CallToolResult,
  Client,
  type CreateMessageRequest,
  type CreateMessageResult,
} from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { afterEach, describe, expect, it } from "vitest"
import { bin, makeProject, type Project, textOf } from "./helpers.ts"

let project: Project | undefined
let client: Client | undefined

afterEach(async () => {
  await client?.close()
  client = undefined
  await project?.remove()
  project = undefined
})

type Sample = CreateMessageRequest["params"]

/** Connects a client to `toolbelt mcp` over stdio; with `sample`, it declares sampling (with tools). */
async function connect(
  dir: Project,
  options: { sample?: (params: Sample) => CreateMessageResult; forms?: string[] } = {},
): Promise<Client> {
  const connected = new Client(
    { name: "sampling-client", version: "1.0.0" },
    {
      capabilities: {
        elicitation: { form: {} },
        ...(options.sample ? { sampling: { tools: {} } } : {}),
      },
      versionNegotiation: { mode: "legacy" },
    },
  )
  if (options.sample) {
    const sample = options.sample
    connected.setRequestHandler("sampling/createMessage", async (request) => sample(request.params as Sample))
  }
  connected.setRequestHandler("elicitation/create", async (request) => {
    options.forms?.push((request.params as { message: string }).message)
    return { action: "accept", content: { decision: "once" } }
  })
  await connected.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [bin, "mcp", "--cwd", dir.dir],
      env: dir.env,
      cwd: dir.dir,
      stderr: "pipe",
    }),
    { timeout: 30_000 },
  )
  return connected
}

describe("task over MCP", () => {
  it("is listed for a client that samples: the subagent's model calls go to it, its ask is a form naming the subagent", async () => {
    project = await makeProject()
    await writeFile(join(project.dir, ".env"), "TOKEN=1\n")
    const requests: Sample[] = []
    const forms: string[] = []
    const replies: CreateMessageResult[] = [
      {
        role: "assistant",
        model: "client-model",
        stopReason: "toolUse",
        content: [{ type: "tool_use", id: "u1", name: "read", input: { filePath: ".env" } }],
      } as unknown as CreateMessageResult,
      {
        role: "assistant",
        model: "client-model",
        stopReason: "endTurn",
        content: { type: "text", text: "TOKEN is set to 1." },
      },
    ]
    client = await connect(project, {
      sample: (params) => {
        requests.push(params)
        return replies.shift() ?? { role: "assistant", model: "m", content: { type: "text", text: "done" } }
      },
      forms,
    })
    const tools = (await client.listTools()).tools
    const task = tools.find((tool) => tool.name === "task")
    expect(task?.description).toContain("- explore: Fast read-only subagent")
    expect(task?.inputSchema.properties).toHaveProperty("subagent_type")

    const result = (await client.callTool({
      name: "task",
      arguments: { description: "read the env", prompt: "What is in .env?", subagent_type: "general" },
    })) as CallToolResult
    const text = textOf(result)
    expect(result.isError).toBeFalsy()
    expect(text).toMatch(
      /^<task id="ses_\w+" state="completed">\n<task_result>\nTOKEN is set to 1.\n<\/task_result>\n<\/task>$/,
    )

    // What the client was asked to sample: the subagent's instructions and brief, the tools (without
    // task), then the read's result as a tool_result.
    expect(requests).toHaveLength(2)
    expect(requests[0]!.systemPrompt).toContain("You are a subagent")
    expect(requests[0]!.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "What is in .env?" }] },
    ])
    const offered = (requests[0]!.tools ?? []).map((tool) => tool.name)
    expect(offered).toContain("read")
    expect(offered).not.toContain("task")
    expect(requests[1]!.messages.at(-1)).toMatchObject({
      role: "user",
      content: [
        {
          type: "tool_result",
          toolUseId: "u1",
          content: [{ type: "text", text: expect.stringContaining("TOKEN=1") }],
        },
      ],
    })
    // The subagent's ask reached the person through this client, saying who asked.
    expect(forms).toHaveLength(1)
    expect(forms[0]).toContain(
      'The read tool of the general subagent (task: read the env) asks for permission "read"',
    )
  })

  it("is not listed for a client that cannot sample", async () => {
    project = await makeProject()
    client = await connect(project)
    const names = (await client.listTools()).tools.map((tool) => tool.name)
    expect(names).toContain("read")
    expect(names).not.toContain("task")
  })
})
