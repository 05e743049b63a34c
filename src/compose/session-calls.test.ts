// The loop guard's memory across its bound: a session it forgot to stay within `maxSessions` is
// remembered again from the session's recorded calls.
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { expect, it } from "vitest"
import { createToolbelt } from "./toolbelt.ts"

it("a session the loop guard forgot to stay within its bound is remembered from its recorded calls", async () => {
  const dir = await mkdtemp(join(tmpdir(), "toolbelt-session-calls-"))
  await writeFile(join(dir, "a.txt"), "hello\n")
  const toolbelt = await createToolbelt({
    directory: dir,
    dataDir: join(dir, ".data"),
    config: { doom_loop: { maxSessions: 1 }, permission: { doom_loop: "deny" } },
    sweep: false,
  })
  try {
    const read = (sessionID: string) =>
      toolbelt.call({ tool: "read", input: { filePath: "a.txt" }, sessionID })
    expect((await read("ses_a")).status).toBe("completed")
    expect((await read("ses_a")).status).toBe("completed")
    // Another session takes the guard's only place.
    expect((await read("ses_b")).status).toBe("completed")
    const third = await read("ses_a")
    expect(third).toMatchObject({ status: "error" })
    expect(third.status === "error" ? third.error : "").toMatch(/3rd identical call/)
  } finally {
    await toolbelt.close()
    await rm(dir, { recursive: true, force: true })
  }
})
