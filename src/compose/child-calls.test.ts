// Who refused a call made on behalf of another (a batch's): the batch stops, and says who refused its
// call as that call said it. A real toolbelt, real files and processes.
import { mkdir, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { failed } from "../tools/kit/fixtures/harness.ts"
import { type TempProject, tempProject } from "./fixtures/temp-project.ts"
import { internals } from "./internals.ts"
import type { Toolbelt, ToolbeltOptions } from "./toolbelt.ts"

let temp: TempProject
let outside: string

beforeEach(async () => {
  temp = await tempProject("toolbelt-child-calls-")
  outside = join(temp.root, "outside")
  await mkdir(outside)
  await writeFile(join(outside, "a.txt"), "a\n")
  await writeFile(join(outside, "b.txt"), "b\n")
})

afterEach(() => temp.remove())

function toolbelt(options: Omit<ToolbeltOptions, "directory" | "env"> = {}): Promise<Toolbelt> {
  return temp.toolbelt({ ...options, config: { batch: true, ...options.config } })
}

/** What a headless surface answers: no one could be asked, and why. */
const noOne = async () => ({ unanswered: "no terminal in this test" })
const say = { command: "echo same", description: "Say the same" }
const call = (tool: string, parameters: Record<string, unknown>) => ({ tool, parameters })

describe("a batch whose call was refused says who refused it", () => {
  it("the loop guard, when no one could be asked about the loop", async () => {
    const tb = await toolbelt({ decide: noOne })
    const session = { sessionID: "ses_loop" }
    for (const n of [1, 2]) {
      const done = await tb.call({ tool: "bash", input: say, ...session, callID: `call_${n}` })
      expect(done.status).toBe("completed")
    }
    const result = failed(
      await tb.call({ tool: "batch", input: { tool_calls: [call("bash", say)] }, ...session, callID: "b" }),
    )
    expect(result).toMatchObject({ kind: "permission", blocked: true })
    expect(result.error).toMatch(/^The loop guard stopped this call: bash \{"command":"echo same",/)
    expect(result.error).toContain("no one could be asked")
    expect(result.error).toContain('"permission": {"doom_loop": "allow"}')
    expect(result.error).not.toMatch(/user rejected/i)
    // The refused call itself says the same.
    const child = internals(tb).store.parts.get("ses_loop", "b.1")?.state
    expect(child).toMatchObject({ status: "error" })
    expect(child?.status === "error" && child.error).toBe(result.error)
  })

  it("no one, for every pending ask of the session, when the first could not be asked", async () => {
    const tb = await toolbelt({ decide: noOne })
    const result = failed(
      await tb.call({
        tool: "batch",
        sessionID: "ses_two",
        callID: "b",
        input: {
          tool_calls: [
            call("read", { filePath: join(outside, "a.txt") }),
            call("read", { filePath: join(outside, "b.txt") }),
          ],
        },
      }),
    )
    expect(result).toMatchObject({ kind: "permission", blocked: true })
    expect(result.error).toMatch(/^This call needs a person's approval and no one could be asked/)
    for (const child of ["b.1", "b.2"]) {
      const state = internals(tb).store.parts.get("ses_two", child)?.state
      expect(state?.status).toBe("error")
      const error = state?.status === "error" ? state.error : ""
      expect(error).toContain("no one could be asked")
      expect(error).toContain("no terminal in this test")
      expect(error).not.toMatch(/user rejected/i)
    }
  })

  it("the user, only when a person answered reject through permission.reply", async () => {
    const tb = await toolbelt()
    const off = tb.subscribe("permission.asked", (event) => {
      tb.permission.reply({ requestID: event.properties.id, reply: "reject" })
    })
    const result = failed(
      await tb.call({
        tool: "batch",
        sessionID: "ses_person",
        callID: "b",
        input: { tool_calls: [call("read", { filePath: join(outside, "a.txt") })] },
      }),
    )
    off()
    expect(result).toMatchObject({ kind: "permission", blocked: true })
    expect(result.error).toBe("The user rejected permission to use this specific tool call.")
  })
})
