import { describe, expect, it } from "vitest"
import type { PermissionAsked } from "../../runtime/bus/events.ts"
import { answerOf, askForm, describeMetadata, fallbackRejection } from "./ask-form.ts"

const ask: PermissionAsked = {
  id: "per_1",
  sessionID: "ses_1",
  permission: "bash",
  patterns: ["git push origin main"],
  always: ["git push *"],
  metadata: { command: "git push origin main", description: "Push the branch" },
  tool: { messageID: "msg_1", callID: "call_1", name: "bash" },
}

describe("askForm", () => {
  it("shows the tool, the permission, the patterns, the details and exactly what 'always' saves", () => {
    const form = askForm(ask)
    expect(form.mode).toBe("form")
    expect(form.message).toBe(
      [
        'The bash tool asks for permission "bash":',
        "  git push origin main",
        "",
        "command: git push origin main",
        "description: Push the branch",
        "",
        "Allow once: this call goes on.",
        'Always: this call goes on, and toolbelt saves "bash" for git push * for this project (list or revoke with "toolbelt permissions").',
        "Reject: the call fails; your message, if you write one, is passed to the agent.",
      ].join("\n"),
    )
  })

  it("is a flat form: one decision (once, always, reject) and an optional message", () => {
    const { requestedSchema } = askForm(ask)
    expect(requestedSchema).toEqual({
      type: "object",
      properties: {
        decision: {
          type: "string",
          title: "Decision",
          description: 'Allow this bash request once, always (saves "bash" for git push *), or reject it.',
          oneOf: [
            { const: "once", title: "Allow once" },
            { const: "always", title: 'Always allow "bash" for git push *' },
            { const: "reject", title: "Reject" },
          ],
        },
        message: {
          type: "string",
          title: "Message to the agent (optional)",
          description: "With Reject: what the agent should do instead.",
        },
      },
      required: ["decision"],
    })
  })

  it("labels the choices with enum + enumNames for a client of a revision before 2025-11-25", () => {
    const decision = askForm(ask, { titledEnums: false }).requestedSchema.properties.decision
    expect(decision).toEqual({
      type: "string",
      title: "Decision",
      description: 'Allow this bash request once, always (saves "bash" for git push *), or reject it.',
      enum: ["once", "always", "reject"],
      enumNames: ["Allow once", 'Always allow "bash" for git push *', "Reject"],
    })
    expect(decision).not.toHaveProperty("oneOf")
  })

  it("names no tool when the ask has none, and says when 'always' saves nothing", () => {
    const form = askForm({ ...ask, tool: undefined, always: [], metadata: {} })
    expect(form.message.split("\n")[0]).toBe('A tool asks for permission "bash":')
    expect(form.message).toContain("saves nothing (no pattern matches only this call) for this project")
    expect(form.message).not.toContain('saves "bash" for git push origin main')
  })

  it("says which subagent asks", () => {
    const call = { sessionID: "ses_0", callID: "call_0" }
    const form = askForm({
      ...ask,
      subagent: { agent: "general", description: "push it", parent: call, root: call },
    })
    expect(form.message.split("\n")[0]).toBe(
      'The bash tool of the general subagent (task: push it) asks for permission "bash":',
    )
  })
})

describe("answerOf", () => {
  it.each([
    ["accepted once", { action: "accept", content: { decision: "once" } }, { reply: "once" }],
    ["accepted always", { action: "accept", content: { decision: "always" } }, { reply: "always" }],
    ["rejected", { action: "accept", content: { decision: "reject" } }, { reply: "reject" }],
    [
      "rejected with a message",
      { action: "accept", content: { decision: "reject", message: "  use rebase  " } },
      { reply: "reject", message: "use rebase" },
    ],
    [
      "rejected with a blank message",
      { action: "accept", content: { decision: "reject", message: " " } },
      { reply: "reject" },
    ],
    ["declined", { action: "decline" }, { reply: "reject" }],
    ["cancelled", { action: "cancel" }, { reply: "reject" }],
    ["an unknown decision", { action: "accept", content: { decision: "maybe" } }, { reply: "reject" }],
    ["accepted without content", { action: "accept" }, { reply: "reject" }],
    ["missing", undefined, { reply: "reject" }],
    ["not an object", "once", { reply: "reject" }],
  ])("%s", (_name, response, expected) => {
    expect(answerOf(response)).toEqual(expected)
  })

  it("a message only counts with a reject", () => {
    expect(answerOf({ action: "accept", content: { decision: "once", message: "sure" } })).toEqual({
      reply: "once",
    })
  })
})

describe("fallbackRejection", () => {
  it("says what was asked, why it was rejected, and the config that allows it", () => {
    expect(fallbackRejection(ask, "/work/project")).toBe(
      'Permission "bash" for git push origin main needs approval, and this MCP client cannot ask the user (it does not support elicitation), so toolbelt rejected the call ("mcp.ask" is "reject"). ' +
        'To allow it, add {"permission":{"bash":{"git push *":"allow"}}} to toolbelt.json in /work/project, or set {"mcp":{"ask":"allow"}} there to approve every ask.',
    )
  })

  it("says why a command the rules cannot check was asked about, and how to write it so they can", () => {
    const unchecked = {
      patterns: ["$(echo rm) x"],
      reason:
        "The rules cannot check `$(echo rm) x`: its command word $(echo rm) is computed at run time (an expansion).",
      advice: "Write each command literally.",
    }
    const text = fallbackRejection({ ...ask, patterns: ["$(echo rm) x"], metadata: { unchecked } }, "/p")
    expect(text).toContain("cannot ask the user")
    expect(text).toContain("computed at run time")
    expect(text).toContain("Write each command literally.")
  })
})

describe("describeMetadata", () => {
  it("shows strings as they are, multi-line ones under their key, the rest as JSON, and skips empty values", () => {
    expect(
      describeMetadata({ diff: "-a\n+b", count: 2, flags: ["x"], empty: "", none: null, gone: undefined }),
    ).toBe('diff:\n-a\n+b\ncount: 2\nflags: ["x"]')
  })

  it("is bounded", () => {
    const text = describeMetadata({ diff: "x".repeat(10_000) })
    expect(text.length).toBeLessThan(4100)
    expect(text.endsWith("… (cut)")).toBe(true)
  })
})
