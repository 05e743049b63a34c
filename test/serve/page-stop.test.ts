// Stopping a running call through the API (the page's Stop button): the call ends interrupted, its
// processes gone, its record saying who stopped it; unknown ids are 404s and a finished call a 409.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { internals } from "../../src/compose/internals.ts"
import { processesWith } from "../mcp/helpers.ts"
import { api, newSession, type Running, startServer, until } from "./helpers.ts"

let server: Running
let url: string
let session: string

beforeAll(async () => {
  server = await startServer()
  url = server.url
  session = await newSession(url, "stop")
})

afterAll(async () => {
  await server?.close()
})

async function partOf(callID: string): Promise<any> {
  const detail = await api(url, "GET", `/api/sessions/${session}`)
  return detail.body.parts.find((part: { callID: string }) => part.callID === callID)
}

describe("POST /api/sessions/:id/calls/:callID/abort", () => {
  it("stops a running command: interrupted, stopped by the API, its process gone", async () => {
    const callID = "call_stop_sleep"
    const call = api(url, "POST", `/api/sessions/${session}/calls`, {
      tool: "bash",
      input: { command: "sleep 31.4159", description: "Sleep a while" },
      callID,
    })
    await until(async () => (await partOf(callID))?.state.status === "running", "the call to run")
    await until(async () => (await processesWith("sleep 31.4159")).length > 0, "the sleep to start")

    const stopped = await api(url, "POST", `/api/sessions/${session}/calls/${callID}/abort`)
    expect(stopped.status).toBe(200)
    expect(stopped.body.part.state).toMatchObject({
      status: "error",
      metadata: { interrupted: true, stoppedBy: "api" },
    })
    const settled = await call
    expect(settled.body).toMatchObject({ status: "error", kind: "interrupted" })
    await until(async () => (await processesWith("sleep 31.4159")).length === 0, "the sleep to be gone", 5000)

    // Recorded so: the session's history says who stopped it.
    expect((await partOf(callID)).state.metadata).toMatchObject({ interrupted: true, stoppedBy: "api" })
    // Stopping it again: it has ended.
    const again = await api(url, "POST", `/api/sessions/${session}/calls/${callID}/abort?by=page`)
    expect(again.status).toBe(409)
    expect(again.body.error).toContain("has already ended (error)")
  })

  it("says who stopped it: ?by=page", async () => {
    const callID = "call_stop_page"
    const call = api(url, "POST", `/api/sessions/${session}/calls`, {
      tool: "bash",
      input: { command: "sleep 27.1828", description: "Sleep" },
      callID,
    })
    await until(async () => (await partOf(callID))?.state.status === "running", "the call to run")
    const stopped = await api(url, "POST", `/api/sessions/${session}/calls/${callID}/abort?by=page`)
    expect(stopped.status).toBe(200)
    expect(stopped.body.part.state.metadata.stoppedBy).toBe("page")
    expect((await call).body.status).toBe("error")
  })

  it("404 for an unknown session or call, 409 for a call that completed, 400 for an unknown `by`", async () => {
    const noSession = await api(url, "POST", "/api/sessions/ses_missing/calls/call_x/abort")
    expect(noSession.status).toBe(404)
    expect(noSession.body.error).toContain("Session not found")
    const noCall = await api(url, "POST", `/api/sessions/${session}/calls/call_missing/abort`)
    expect(noCall.status).toBe(404)
    expect(noCall.body.error).toContain("no call call_missing")

    const done = await api(url, "POST", `/api/sessions/${session}/calls`, {
      tool: "glob",
      input: { pattern: "*.txt" },
      callID: "call_done",
    })
    expect(done.body.status).toBe("completed")
    const finished = await api(url, "POST", `/api/sessions/${session}/calls/call_done/abort`)
    expect(finished.status).toBe(409)
    expect(finished.body.error).toContain("has already ended (completed)")

    const who = await api(url, "POST", `/api/sessions/${session}/calls/call_done/abort?by=someone`)
    expect(who.status).toBe(400)
  })

  it("409 for a call the store has running that this process does not run (another instance's)", async () => {
    const now = Date.now()
    internals(server.toolbelt).store.parts.upsert({
      id: "prt_elsewhere",
      sessionID: session,
      messageID: "msg_elsewhere",
      type: "tool",
      callID: "call_elsewhere",
      tool: "bash",
      state: { status: "running", input: { command: "sleep 100" }, time: { start: now } },
    })
    const elsewhere = await api(url, "POST", `/api/sessions/${session}/calls/call_elsewhere/abort`)
    expect(elsewhere.status).toBe(409)
    expect(elsewhere.body.error).toContain("another toolbelt instance sharing this store runs it")
  })
})
