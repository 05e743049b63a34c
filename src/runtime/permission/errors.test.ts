// Refusals say who refused: a person, no one (and why), the loop guard, or toolbelt stopping.
import { describe, expect, it } from "vitest"
import { PermissionEngine } from "./engine.ts"
import {
  LoopGuardError,
  PermissionCorrectedError,
  PermissionDeniedError,
  PermissionRejectedError,
  PermissionUnansweredError,
  PermissionWithdrawnError,
  refusalOf,
  stopsTheTurn,
} from "./errors.ts"
import { MemoryApprovalStore } from "./memory-approvals.ts"
import type { AskRequest } from "./service.ts"

function engine(): PermissionEngine {
  return new PermissionEngine({
    projectID: "/project",
    rules: () => [
      { permission: "*", pattern: "*", action: "allow" },
      { permission: "edit", pattern: "*", action: "ask" },
    ],
    approvals: new MemoryApprovalStore(),
  })
}

function ask(file: string, sessionID = "ses_1"): AskRequest {
  return {
    sessionID,
    agent: "build",
    permission: "edit",
    patterns: [file],
    always: [file],
    metadata: {},
    tool: { messageID: "msg_1", callID: `call_${file}`, name: "edit" },
    input: { file },
  }
}

/** The error a pending ask ended with. */
async function ended(pending: Promise<void>): Promise<Error> {
  return pending.then(
    () => {
      throw new Error("the ask was allowed")
    },
    (error: Error) => error,
  )
}

describe("the engine's refusals", () => {
  it("two pending asks of one session, no one to ask: both say no one could be asked, and why", async () => {
    const permission = engine()
    const first = ended(permission.ask(ask("a.ts")))
    const second = ended(permission.ask(ask("b.ts")))
    const other = permission.ask(ask("c.ts", "ses_other"))
    const [pending] = permission.list("ses_1")
    permission.reply({ requestID: pending!.id, reply: "reject", unanswered: "stdin is not a terminal" })
    for (const error of [await first, await second]) {
      expect(error).toBeInstanceOf(PermissionUnansweredError)
      expect(error.message).toBe(
        "This call needs a person's approval and no one could be asked, so it did not run: stdin is not a terminal",
      )
      expect(error.message).not.toMatch(/user rejected/i)
    }
    // Another session's ask is not touched.
    expect(permission.list("ses_other")).toHaveLength(1)
    permission.reply({ requestID: permission.list("ses_other")[0]!.id, reply: "once" })
    await other
  })

  it("a person's reject says the user rejected; the session's other asks say it was another call", async () => {
    const permission = engine()
    const first = ended(permission.ask(ask("a.ts")))
    const second = ended(permission.ask(ask("b.ts")))
    permission.reply({ requestID: permission.list("ses_1")[0]!.id, reply: "reject" })
    const [rejected, withIt] = [await first, await second]
    expect(rejected).toBeInstanceOf(PermissionRejectedError)
    expect(rejected.message).toBe("The user rejected permission to use this specific tool call.")
    expect(withIt).toBeInstanceOf(PermissionRejectedError)
    expect(withIt.message).toBe(
      "The user rejected permission to use another tool call of this session, which stops this one too.",
    )
  })

  it("shutdown says toolbelt stopped before anyone answered, never that someone refused", async () => {
    const permission = engine()
    const pending = ended(permission.ask(ask("a.ts")))
    permission.dispose()
    const error = await pending
    expect(error).toBeInstanceOf(PermissionWithdrawnError)
    expect(error.message).toMatch(/^toolbelt stopped before anyone answered/)
    expect(error.message).not.toMatch(/rejected/i)
    expect(stopsTheTurn(error)).toBe(true)
  })
})

describe("refusalOf: a refused call's words, as its caller's refusal", () => {
  it("keeps who refused and every word of why", () => {
    for (const error of [
      new PermissionUnansweredError("no terminal"),
      new LoopGuardError('bash {"command":"x"}: it was the 3rd identical call in a row'),
      new PermissionWithdrawnError(),
    ]) {
      const revived = refusalOf(error.message)
      expect(revived).toBeInstanceOf(error.constructor)
      expect(revived?.message).toBe(error.message)
      expect(stopsTheTurn(revived)).toBe(true)
    }
  })

  it("names no one for a person's no: the caller says the user rejected", () => {
    expect(refusalOf(new PermissionRejectedError().message)).toBeUndefined()
    expect(refusalOf(new PermissionCorrectedError("edit b.ts").message)).toBeUndefined()
  })

  it("a rule's deny and a person's feedback leave the turn going on", () => {
    expect(stopsTheTurn(new PermissionDeniedError([]))).toBe(false)
    expect(stopsTheTurn(new PermissionCorrectedError("x"))).toBe(false)
  })
})
