// PostgreSQL restarting under load (issue 28), on a real server (test/fixtures/postgres.ts; skipped,
// saying why, where none can start): two `toolbelt serve` processes on one store run a steady stream
// of calls, some of them `sleep 2` in flight, while the server is stopped (fast shutdown: connections
// cut) and started again on the same port. Both instances go on serving without being restarted;
// every result a client received is in the journal as received; every call in flight ends completed
// or interrupted; the event log misses none of the calls that completed.
import { setTimeout as sleep } from "node:timers/promises"
import { afterEach, expect, it } from "vitest"
import type { ToolPart } from "../../src/platform/store/part.ts"
import { openStore } from "../../src/platform/store/store.ts"
import { postgresOrSkip } from "../fixtures/postgres.ts"
import {
  api,
  EventClient,
  makeProject,
  newSession,
  type Reply,
  type ServeProcess,
  type StreamEvent,
  startServe,
} from "../serve/helpers.ts"

const pg = await postgresOrSkip()

const cleanups: (() => Promise<unknown> | unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** A `toolbelt serve` process of a project of its own on the store at `url`, where bash runs unasked. */
async function instance(url: string): Promise<ServeProcess> {
  const project = await makeProject({ permission: { bash: "allow" } })
  cleanups.push(() => project.remove())
  const serve = await startServe(project, ["--store", url, "--trust"])
  cleanups.push(() => serve.stop())
  return serve
}

/** One call a client made, and what it got back. */
interface Sent {
  readonly instance: string
  readonly session: string
  readonly callID: string
  readonly slow: boolean
  /** Sent once the server had been started again. */
  readonly afterRestart: boolean
  reply?: Reply
  failure?: string
}

const restartedAt = { time: 0 }

/** Calls through `url` in `session` one after another until `stop()`: every fourth a `sleep 2`. */
async function load(name: string, url: string, session: string, sent: Sent[], stop: () => boolean) {
  for (let i = 0; !stop(); i++) {
    const callID = `call_${name}_${i}`
    const slow = i % 4 === 1
    const command = slow ? `sleep 2; echo slow ${callID}` : `echo ${callID}`
    const call: Sent = {
      instance: name,
      session,
      callID,
      slow,
      afterRestart: restartedAt.time > 0,
    }
    sent.push(call)
    try {
      call.reply = await api(url, "POST", `/api/sessions/${session}/calls`, {
        tool: "bash",
        input: { command, description: "under load" },
        callID,
      })
    } catch (error) {
      call.failure = String(error)
      await sleep(100)
    }
    if (call.reply && call.reply.status !== 200) await sleep(100)
  }
}

/** Whether the client got the call's result: a 200 whose settlement is completed. */
const received = (call: Sent) => call.reply?.status === 200 && call.reply.body.status === "completed"

pg.describe("PostgreSQL restarting under load", () => {
  it("both serve instances go on serving; nothing received is lost; calls in flight end completed or interrupted; no event missing", async () => {
    const url = await pg.server!.database()
    const instances = { a: await instance(url), b: await instance(url) }
    const subscriber = await EventClient.open(instances.b.url)
    cleanups.push(() => subscriber.close())
    const sessions = {
      a: await newSession(instances.a.url, "load on A"),
      b: await newSession(instances.b.url, "load on B"),
    }

    const sent: Sent[] = []
    let stopped = false
    const stop = () => stopped
    const workers = (["a", "b"] as const).flatMap((name) =>
      [1, 2, 3, 4].map((n) =>
        load(`${name}${n}`, instances[name].url, sessions[name], sent, stop).then(() => undefined),
      ),
    )
    // Load before the restart, until a `sleep 2` of each instance runs: the server goes down under it.
    // (Read through the API: a store opened here would block this thread while the server is down.)
    const runningSlow = async (name: "a" | "b") => {
      const parts = (await api(instances[name].url, "GET", `/api/sessions/${sessions[name]}`)).body.parts
      const slow = new Set(sent.filter((call) => call.slow).map((call) => call.callID))
      return (parts as ToolPart[]).filter((p) => slow.has(p.callID) && p.state.status === "running").length
    }
    let inFlight = 0
    while (inFlight === 0) {
      const [a, b] = [await runningSlow("a"), await runningSlow("b")]
      inFlight = a > 0 && b > 0 ? a + b : 0
      await sleep(50)
    }
    const down = Date.now()
    pg.server!.halt()
    await sleep(1_500)
    pg.server!.start()
    restartedAt.time = Date.now()
    const outage = restartedAt.time - down
    // Load after it, until each instance has answered calls made after the restart.
    const answeredAfter = (name: string) =>
      sent.filter((call) => call.instance.startsWith(name) && call.afterRestart && received(call)).length
    const until = Date.now() + 40_000
    while ((answeredAfter("a") < 4 || answeredAfter("b") < 4) && Date.now() < until) await sleep(100)
    stopped = true
    const store = openStore({ url })
    cleanups.push(() => store.close())
    const part = (call: Sent): ToolPart | undefined =>
      store.parts.list(call.session).find((one) => one.callID === call.callID)
    const hung = await Promise.race([Promise.all(workers).then(() => false), sleep(30_000).then(() => true)])
    if (hung) {
      const waiting = sent.filter((call) => !call.reply && !call.failure).map((call) => call.callID)
      throw new Error(`calls still waiting 30 s after the load stopped: ${waiting.join(", ")}`)
    }

    // Both instances served calls made after the restart, without being restarted.
    for (const [name, serve] of Object.entries(instances)) {
      expect(serve.child.exitCode, serve.stderr()).toBeNull()
      const after = sent.filter((call) => call.instance.startsWith(name) && call.afterRestart)
      expect(after.filter(received).length, `calls through ${name} after the restart`).toBeGreaterThanOrEqual(
        4,
      )
    }

    // Every result a client received is in the journal, as received.
    for (const call of sent.filter(received)) {
      const recorded = part(call)
      expect(recorded?.state, call.callID).toMatchObject({
        status: "completed",
        output: call.reply!.body.output,
      })
      expect(store.journal.entries(call.session, call.callID).at(-1)?.kind, call.callID).toBe("finished")
    }
    // Every other call (cut off, failed, or answered with an error) ends completed or interrupted: none
    // stays open once the fleet's sweep had its time.
    const others = sent.filter((call) => !received(call))
    const open = () =>
      others.filter((call) => {
        const status = part(call)?.state.status
        return status === "running" || status === "pending"
      })
    const deadline = Date.now() + 45_000
    while (open().length > 0 && Date.now() < deadline) await sleep(500)
    expect(open().map((call) => call.callID)).toEqual([])
    for (const call of others) {
      const state = part(call)?.state
      if (!state) continue
      if (state.status === "error") {
        expect(state.metadata?.interrupted, `${call.callID}: ${state.error}`).toBe(true)
      } else expect(state.status).toBe("completed")
    }

    // The event log has every call that completed, once, in one order.
    const completedOn = (event: StreamEvent) =>
      event.type === "message.part.updated" && event.properties.part.state.status === "completed"
    const expected = sent.filter(received).map((call) => call.callID)
    await expect
      .poll(() => new Set(subscriber.bus.filter(completedOn).map((e) => e.properties.part.callID)).size, {
        timeout: 20_000,
      })
      .toBeGreaterThanOrEqual(expected.length)
    const streamed = subscriber.bus.filter(completedOn).map((e) => e.properties.part.callID as string)
    for (const callID of expected) expect(streamed, callID).toContain(callID)
    expect(new Set(streamed).size).toBe(streamed.length)
    const numbers = subscriber.bus.map((event) => Number(event.id!.split(".").pop()))
    expect(numbers.every((n, i) => i === 0 || n > numbers[i - 1]!)).toBe(true)

    const lost = others
      .map(
        (call) =>
          `${call.callID}: ${call.failure ?? `${call.reply?.status} ${JSON.stringify(call.reply?.body).slice(0, 300)}`}`,
      )
      .join("; ")
    console.log(
      `pg restart under load: outage ${outage} ms, ${sent.length} calls, ${sent.filter(received).length} received, ` +
        `${inFlight} sleep 2 in flight at the stop, ${others.length} not received (${others.filter((c) => part(c)?.state.status === "error").length} recorded interrupted) ${lost}`,
    )
  }, 120_000)
})
