import { describe, expect, it } from "vitest"
import type { ToolPart } from "../../../platform/store/part.ts"
import type { SessionInfo } from "../../../platform/store/sessions.ts"
import { PartRenderer } from "./run.ts"
import { TurnParts } from "./turn-parts.ts"

const session = (id: string, parentID?: string, title = ""): SessionInfo => ({
  id,
  projectID: "/p",
  agent: "general",
  title,
  ...(parentID ? { parentID } : {}),
  time: { created: 0, updated: 0 },
})

const sessions = new Map(
  [
    session("ses_root"),
    session("ses_child", "ses_root", "find it (@explore subagent)"),
    session("ses_grand", "ses_child", "dig (@general subagent)"),
    session("ses_other"),
  ].map((each) => [each.id, each]),
)

const part = (sessionID: string, callID: string, tool: string, input: Record<string, unknown>): ToolPart => ({
  id: `prt_${sessionID}_${callID}`,
  sessionID,
  messageID: "msg",
  type: "tool",
  callID,
  tool,
  state: { status: "running", input, time: { start: 1 } },
})

describe("TurnParts (toolbelt run's view of a turn and its subagents)", () => {
  it("shows the turn's calls, and each subagent's calls indented under its name; other sessions not at all", () => {
    let text = ""
    const out = {
      write: (chunk: string) => {
        text += chunk
        return true
      },
    } as unknown as NodeJS.WritableStream
    const view = new TurnParts({
      root: "ses_root",
      session: (id) => sessions.get(id),
      out,
      make: (to) => new PartRenderer(to, false),
    })
    view.update(part("ses_root", "t1", "task", { description: "find it" }))
    view.update(part("ses_child", "c1", "grep", { pattern: "loadConfig" }))
    view.update(part("ses_grand", "g1", "read", { filePath: "a.ts" }))
    view.update(part("ses_child", "c2", "read", { filePath: "b.ts" }))
    view.update(part("ses_other", "o1", "read", { filePath: "secret.ts" }))
    expect(text).toBe(
      [
        "→ task find it",
        "  ↳ find it (@explore subagent)",
        "    → grep loadConfig",
        "      ↳ dig (@general subagent)",
        "        → read a.ts",
        "    → read b.ts",
        "",
      ].join("\n"),
    )
  })
})
