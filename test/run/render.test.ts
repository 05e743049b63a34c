import { describe, expect, it } from "vitest"
import type { ToolPart, ToolState } from "../../src/platform/store/part.ts"
import { PartRenderer } from "../../src/surfaces/cli/commands/run.ts"

function renderer() {
  let text = ""
  const write = (chunk: string) => {
    text += chunk
    return true
  }
  const out = { write } as unknown as NodeJS.WritableStream
  return { render: new PartRenderer(out, false), text: () => text }
}

const part = (state: ToolState, tool = "bash"): ToolPart => ({
  id: "prt_1",
  sessionID: "ses",
  messageID: "msg",
  type: "tool",
  callID: "c1",
  tool,
  state,
})

describe("PartRenderer (toolbelt run's live view)", () => {
  it("shows a call starting, its streaming output line by line, and its end", () => {
    const { render, text } = renderer()
    const input = { command: "make test" }
    render.update(part({ status: "pending", input: {}, raw: "" }))
    expect(text()).toBe("")
    render.update(part({ status: "running", input, time: { start: 1 } }))
    render.update(
      part({
        status: "running",
        input,
        title: "make",
        metadata: { output: "compiling a\ncomp" },
        time: { start: 1 },
      }),
    )
    render.update(
      part({
        status: "running",
        input,
        title: "make",
        metadata: { output: "compiling a\ncompiling b\n" },
        time: { start: 1 },
      }),
    )
    render.update(
      part({
        status: "completed",
        input,
        output: "ok",
        title: "make",
        metadata: { output: "compiling a\ncompiling b\ndone" },
        time: { start: 1, end: 2 },
      }),
    )
    expect(text()).toBe(
      ["→ bash make test", "  │ compiling a", "  │ compiling b", "  │ done", "✓ bash make", ""].join("\n"),
    )
  })

  it("continues after the last printed line when a bounded tail moves on", () => {
    const { render, text } = renderer()
    const input = { command: "yes" }
    render.update(part({ status: "running", input, metadata: { output: "1\n2\n3\n" }, time: { start: 1 } }))
    render.update(
      part({ status: "running", input, metadata: { output: "2\n3\n4\n5\n" }, time: { start: 1 } }),
    )
    expect(text()).toBe(["→ bash yes", "  │ 1", "  │ 2", "  │ 3", "  │ 4", "  │ 5", ""].join("\n"))
  })

  it("shows the diff of a file change and the first line of an error", () => {
    const { render, text } = renderer()
    const diff = "--- a.txt\n+++ a.txt\n@@ -1 +1 @@\n-old\n+new\n"
    render.update(
      part(
        {
          status: "completed",
          input: { filePath: "a.txt" },
          output: "Wrote a.txt",
          title: "a.txt",
          metadata: { diff },
          time: { start: 1, end: 2 },
        },
        "write",
      ),
    )
    expect(text()).toBe(
      [
        "→ write a.txt",
        "✓ write a.txt",
        "  --- a.txt",
        "  +++ a.txt",
        "  @@ -1 +1 @@",
        "  -old",
        "  +new",
        "",
      ].join("\n"),
    )
    const second = renderer()
    second.render.update(
      part(
        { status: "error", input: {}, error: "no such file\nmore detail", time: { start: 1, end: 2 } },
        "read",
      ),
    )
    second.render.update(
      part({ status: "error", input: {}, error: "again", time: { start: 1, end: 2 } }, "read"),
    )
    expect(second.text()).toBe("→ read\n✗ read: no such file\n")
  })

  it("marks an interrupted call", () => {
    const { render, text } = renderer()
    render.update(
      part({
        status: "error",
        input: {},
        error: "Tool execution aborted",
        metadata: { interrupted: true },
        time: { start: 1, end: 2 },
      }),
    )
    expect(text()).toContain("⊘ bash: Tool execution aborted")
  })

  it("shows a refusal whose one line names a deep path in full, so the run need not repeat it", () => {
    let text = ""
    const write = (chunk: string) => {
      text += chunk
      return true
    }
    const out = { write } as unknown as NodeJS.WritableStream
    const shown = new Set<string>()
    const render = new PartRenderer(out, false, shown)
    const deep = `/tmp/${"nested-folder/".repeat(30)}outside/*`
    const error = `This call needs a person's approval and no one could be asked, so it did not run: permission external_directory for ${deep} needs approval.`
    expect(error.length).toBeGreaterThan(300)
    render.update(part({ status: "running", input: {}, time: { start: 1 } }, "read"))
    render.update(part({ status: "error", input: {}, error, time: { start: 1, end: 2 } }, "read"))
    expect(text).toContain(`✗ read: ${error}\n`)
    expect(shown.has(error)).toBe(true)
  })
})
