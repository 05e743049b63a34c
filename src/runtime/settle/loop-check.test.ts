import { describe, expect, it } from "vitest"
import type { ToolState } from "../../platform/store/part.ts"
import type { PermissionService } from "../permission/service.ts"
import { completedAnswer, DoomLoopGuard } from "./doom-loop.ts"
import { LoopCheck } from "./loop-check.ts"
import type { CallRequest } from "./types.ts"

const request = { sessionID: "ses_a", tool: "read", input: {} } as unknown as CallRequest
const input = { filePath: "/a.ts" }
const text = "1: a\n".repeat(1000)
const picture = { type: "file", mime: "image/png", url: "data:image/png;base64,AA==" } as const

/** A read-only call met by the guard: judged after it answered, remembered once settled. */
function readOnlyCheck(guard: DoomLoopGuard): LoopCheck {
  return new LoopCheck({
    guard,
    // No loop is found in these tests, so nobody is asked.
    permission: undefined as unknown as PermissionService,
    request,
    tool: "read",
    input,
    readOnly: true,
    signal: new AbortController().signal,
  })
}

const completed = (attachments: (typeof picture)[]): ToolState =>
  ({
    status: "completed",
    input,
    output: "cut",
    title: "a.ts",
    metadata: {},
    time: { start: 1, end: 2 },
    ...(attachments.length ? { attachments } : {}),
  }) as ToolState

describe("LoopCheck", () => {
  it("remembers a completed answer as judged after the call (digests taken once), the same as recording it whole", async () => {
    const guard = new DoomLoopGuard()
    const check = readOnlyCheck(guard)
    check.answered(text)
    expect(await check.after(completedAnswer(text, []), [])).toBeUndefined()
    check.remember(completed([]))
    const reference = new DoomLoopGuard()
    reference.record("ses_a", { tool: "read", input, answer: completedAnswer(text, []) })
    expect(guard.history("ses_a")).toEqual(reference.history("ses_a"))
  })

  it("a settled answer with other attachments than the judged one is digested anew", async () => {
    const guard = new DoomLoopGuard()
    const check = readOnlyCheck(guard)
    check.answered(text)
    await check.after(completedAnswer(text, []), [])
    check.remember(completed([picture]))
    const reference = new DoomLoopGuard()
    reference.record("ses_a", { tool: "read", input, answer: completedAnswer(text, [picture]) })
    expect(guard.history("ses_a")).toEqual(reference.history("ses_a"))
    expect(guard.history("ses_a")[0]!.key).not.toBe(keyOf(text, []))
  })

  it("three reads answering the same: the third is found looping, through the digests after() took", async () => {
    const guard = new DoomLoopGuard()
    for (let i = 0; i < 2; i++) {
      const check = readOnlyCheck(guard)
      check.answered(text)
      await check.after(completedAnswer(text, []), [])
      check.remember(completed([]))
    }
    expect(guard.check("ses_a", { tool: "read", input, answer: completedAnswer(text, []) })).toEqual({
      kind: "repeat",
      tool: "read",
      count: 3,
    })
  })
})

/** The key the guard gives a read that answered `answerText` with `attachments`. */
function keyOf(answerText: string, attachments: (typeof picture)[]): string | undefined {
  const guard = new DoomLoopGuard()
  guard.record("k", { tool: "read", input, answer: completedAnswer(answerText, attachments) })
  return guard.history("k")[0]!.key
}
