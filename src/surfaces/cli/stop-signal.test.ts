import { describe, expect, it } from "vitest"
import { CommandStop, type RunningServer, serveUntilStopped } from "./stop-signal.ts"

/** A server that counts its closes; `end` ends it by itself. */
function server(options: { endsByItself?: boolean } = {}) {
  const ended = Promise.withResolvers<void>()
  let closes = 0
  const running: RunningServer = {
    ...(options.endsByItself ? { closed: ended.promise } : {}),
    async close() {
      closes++
    },
  }
  return { running, end: () => ended.resolve(), closes: () => closes }
}

const listeners = () => process.listenerCount("SIGINT") + process.listenerCount("SIGTERM")

describe("serveUntilStopped", () => {
  it("closes the server on SIGTERM and stops listening", async () => {
    const before = listeners()
    const { running, closes } = server()
    const served = serveUntilStopped(async () => running)
    await new Promise((resolve) => setImmediate(resolve))
    expect(closes()).toBe(0)
    process.emit("SIGTERM")
    await served
    expect(closes()).toBe(1)
    expect(listeners()).toBe(before)
  })

  it("closes a server that ended by itself", async () => {
    const before = listeners()
    const { running, end, closes } = server({ endsByItself: true })
    const served = serveUntilStopped(async () => running)
    end()
    await served
    expect(closes()).toBe(1)
    expect(listeners()).toBe(before)
  })

  it("closes the server once it is up when SIGINT came while it started", async () => {
    const { running, closes } = server()
    await serveUntilStopped(async () => {
      process.emit("SIGINT")
      return running
    })
    expect(closes()).toBe(1)
  })

  it("stops listening when the server fails to start", async () => {
    const before = listeners()
    await expect(
      serveUntilStopped(async () => {
        throw new Error("port taken")
      }),
    ).rejects.toThrow("port taken")
    expect(listeners()).toBe(before)
  })
})

describe("CommandStop", () => {
  it("Ctrl+C at a prompt aborts the command's signal and names the prompt", () => {
    const stop = new CommandStop()
    stop.interrupt("the permission prompt")
    expect(stop.signal.aborted).toBe(true)
    expect(stop.message("the call was stopped.")).toBe(
      "interrupted at the permission prompt (Ctrl+C); the call was stopped.",
    )
  })

  it("a signal aborts it without naming a prompt; a later Ctrl+C does not rename what stopped it", () => {
    const before = listeners()
    const stop = new CommandStop()
    const stopListening = stop.listen()
    process.emit("SIGTERM")
    stop.interrupt("the question prompt")
    stopListening()
    expect(stop.signal.aborted).toBe(true)
    expect(stop.prompt).toBeUndefined()
    expect(stop.message("the turn was stopped.")).toBe("interrupted; the turn was stopped.")
    expect(listeners()).toBe(before)
  })
})
