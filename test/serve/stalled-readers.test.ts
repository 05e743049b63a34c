// `toolbelt serve` under clients of `/events` that resume from far back and never read: what they may
// hold is bounded per stream and in number. Memory is measured in the server process (/proc).

import { writeFile } from "node:fs/promises"
import { connect, type Socket } from "node:net"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { MiB, memoryOf, settled } from "../proc-memory.ts"
import { api, authFor, EventClient, makeProject, newSession, type Project, startServe } from "./helpers.ts"

const onLinux = process.platform === "linux"

/** A GET of `/events` on a raw socket that never reads what comes back. */
function stalledReader(url: string, lastEventID: string): Promise<Socket> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      const headers = { ...authFor(url), accept: "text/event-stream", "last-event-id": lastEventID }
      const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`)
      socket.write(`GET /events HTTP/1.1\r\nhost: ${hostname}:${port}\r\n${lines.join("")}\r\n`)
      socket.pause()
      resolve(socket)
    })
    socket.once("error", reject)
  })
}

/** Whether the server still holds every event after `lastEventID` (its stream says `resumed`). */
async function resumes(url: string, lastEventID: string): Promise<boolean> {
  const client = await EventClient.open(url, { lastEventID })
  client.close()
  return (client.events[0]!.properties as { resumed: boolean }).resumed
}

/** The id of the oldest event the server still holds: a reader resuming from it is handed all it holds. */
async function oldestResumable(url: string): Promise<string> {
  const client = await EventClient.open(url)
  client.close()
  const { epoch, last } = client.events[0]!.properties as { epoch: string; last: string }
  let low = 1
  let high = Number(last.split(".").pop())
  while (low < high) {
    const middle = Math.floor((low + high) / 2)
    if (await resumes(url, `${epoch}.${middle}`)) high = middle
    else low = middle + 1
  }
  return `${epoch}.${low}`
}

describe.skipIf(!onLinux)("serve's /events under stalled readers (Linux: memory read from /proc)", () => {
  let project: Project

  beforeEach(async () => {
    project = await makeProject()
  })

  afterEach(async () => {
    await project.remove()
  })

  it("100 readers resuming from the oldest event held that never read grow the server by less than 200 MiB", async () => {
    const lines = Array.from({ length: 900 }, (_, n) => `line ${n}: ${"x".repeat(40)}`)
    await writeFile(join(project.dir, "big.txt"), `${lines.join("\n")}\n`)
    const serve = await startServe(project)
    const sockets: Socket[] = []
    try {
      const session = await newSession(serve.url)
      // Enough 45 KB reads to fill the log's byte budget (offsets differ: the loop guard stops repeats).
      for (let n = 0; n < 400; n++) {
        const reply = await api(serve.url, "POST", `/api/sessions/${session}/calls`, {
          tool: "read",
          input: { filePath: "big.txt", offset: (n % 20) + 1 },
        })
        expect(reply.body.status).toBe("completed")
      }
      const from = await oldestResumable(serve.url)

      const pid = serve.child.pid!
      await settled(async () => Math.round((await memoryOf(pid)).rss / MiB))
      const before = await memoryOf(pid)
      for (let n = 0; n < 100; n++) sockets.push(await stalledReader(serve.url, from))
      await settled(async () => Math.round((await memoryOf(pid)).peak / MiB))
      const after = await memoryOf(pid)
      // Unbounded, 100 such readers grew it by some 775 MiB; bounded, by some 115 MiB.
      expect(after.peak - before.rss).toBeLessThan(200 * MiB)

      // The server still answers, and a reader that reads gets its events.
      expect((await api(serve.url, "GET", "/api/sessions")).status).toBe(200)
      const reader = await EventClient.open(serve.url, { lastEventID: from })
      await reader.next((event) => event.type === "message.part.updated", "a replayed event")
      reader.close()
    } finally {
      for (const socket of sockets) socket.destroy()
      await serve.stop()
    }
  }, 300_000)
})
