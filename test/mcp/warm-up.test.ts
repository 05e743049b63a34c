// `toolbelt mcp` over stdio warms its call path on a throwaway toolbelt once its first answer is out:
// in a temp dir of its own, with an in-memory store, removed when it ends, or when the connection does.
// Nothing of it reaches the project, the session's records or the client. --no-warm-up skips it.
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DatabaseSync } from "node:sqlite"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { connectStdio, makeProject, type Project, type StdioConnected, textOf, until } from "./helpers.ts"

let project: Project
let temp: string
const open: StdioConnected[] = []

beforeEach(async () => {
  project = await makeProject()
  // The server's TMPDIR: where its warm-up dir goes, watched here.
  temp = await mkdtemp(join(tmpdir(), "toolbelt-mcp-warm-tmp-"))
  ;(project.env as Record<string, string>).TMPDIR = temp
  await writeFile(join(project.dir, "notes.txt"), "one\ntwo\n")
})

afterEach(async () => {
  for (const connection of open.splice(0)) await connection.close()
  await project.remove()
  await rm(temp, { recursive: true, force: true })
})

const warmUpDirs = async () => (await readdir(temp)).filter((name) => name.startsWith("toolbelt-warm-up-"))

describe("toolbelt mcp's warm-up", () => {
  it("runs after the first answer, leaves nothing behind, and none of its calls is the session's", async () => {
    const connection = await connectStdio(project)
    open.push(connection)
    await until(async () => (await warmUpDirs()).length > 0, "the warm-up to start")
    const read = await connection.client.callTool({ name: "read", arguments: { filePath: "notes.txt" } })
    expect(textOf(read)).toContain("1: one")
    await until(async () => (await warmUpDirs()).length === 0, "the warm-up to end and clean up", 20_000)

    const db = new DatabaseSync(join(project.env.HOME!, "data", "toolbelt.db"), { readOnly: true })
    const parts = db.prepare("SELECT tool FROM part").all() as { tool: string }[]
    db.close()
    expect(parts.map((part) => part.tool)).toEqual(["read"])
    expect(connection.stderr()).not.toContain("warm")
  })

  it("ends with the connection, its dir removed before the process exits", async () => {
    const connection = await connectStdio(project)
    await until(async () => (await warmUpDirs()).length > 0, "the warm-up to start")
    await connection.close()
    await until(
      async () => {
        try {
          process.kill(connection.pid, 0)
          return false
        } catch {
          return true
        }
      },
      "the server to exit",
      20_000,
    )
    expect(await warmUpDirs()).toEqual([])
  })

  it("--no-warm-up: none runs", async () => {
    const connection = await connectStdio(project, { args: ["--no-warm-up"] })
    open.push(connection)
    const read = await connection.client.callTool({ name: "read", arguments: { filePath: "notes.txt" } })
    expect(textOf(read)).toContain("1: one")
    await new Promise((resolve) => setTimeout(resolve, 1000))
    expect(await warmUpDirs()).toEqual([])
  })
})
