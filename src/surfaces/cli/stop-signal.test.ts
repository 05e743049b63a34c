import { describe, expect, it } from "vitest"
import { type RunningServer, serveUntilStopped } from "./stop-signal.ts"

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
