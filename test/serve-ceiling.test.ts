// `toolbelt serve --agent X` / `toolbelt mcp --agent X`: X is a ceiling. An API caller that names a
// more permissive agent is held to X's rules too, through the real command on loopback.
import { existsSync } from "node:fs"
import { afterEach, describe, expect, it } from "vitest"
import { api, makeProject, newSession, type Project, type ServeProcess, startServe } from "./serve/helpers.ts"

let project: Project | undefined
let serve: ServeProcess | undefined
afterEach(async () => {
  await serve?.stop()
  await project?.remove()
  serve = undefined
  project = undefined
})

describe("serve --agent explore", () => {
  it("an API call as build cannot write: explore's deny holds over it, naming explore's rule", async () => {
    project = await makeProject()
    serve = await startServe(project, ["--agent", "explore"])
    const session = await newSession(serve.url)
    const write = await api(serve.url, "POST", `/api/sessions/${session}/calls`, {
      tool: "write",
      agent: "build",
      input: { filePath: "x.txt", content: "x\n" },
    })
    expect(write.status).toBe(200)
    expect(write.body).toMatchObject({
      status: "error",
      error: expect.stringContaining("the explore agent's defaults"),
    })
    expect(existsSync(`${project.dir}/x.txt`)).toBe(false)
    // The tool lists agree: build is not offered what explore denies.
    const tools = await api(serve.url, "GET", "/api/tools?agent=build")
    const names = (tools.body as { name: string }[]).map((tool) => tool.name)
    expect(names).toContain("read")
    expect(names).not.toContain("write")
    // What explore allows, build still may: a read.
    const read = await api(serve.url, "POST", `/api/sessions/${session}/calls`, {
      tool: "read",
      agent: "build",
      input: { filePath: "hello.txt" },
    })
    expect(read.body).toMatchObject({ status: "completed" })
  })

  it("without --agent, build writes as before", async () => {
    project = await makeProject()
    serve = await startServe(project)
    const session = await newSession(serve.url)
    const write = await api(serve.url, "POST", `/api/sessions/${session}/calls`, {
      tool: "write",
      agent: "build",
      input: { filePath: "x.txt", content: "x\n" },
    })
    expect(write.body).toMatchObject({ status: "completed" })
  })
})
