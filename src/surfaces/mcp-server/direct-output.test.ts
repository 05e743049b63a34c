import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { Socket } from "node:net"
import { join } from "node:path"
import { PassThrough } from "node:stream"
import { describe, expect, it } from "vitest"
import { DirectOutput } from "./direct-output.ts"

const writer = join(import.meta.dirname, "fixtures", "direct-output-writer.ts")
const onPosix = process.platform !== "win32"

interface Report {
  done: number
  inOrder: boolean
  errors: string[]
  streamPeak: number
  drainedInTurn?: boolean
  drained: boolean
}

/** Starts the writer with a socket for stdout (what a client's `spawn` gives a server). */
function start(lines: number, bytes: number, busy = false): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [writer, String(lines), String(bytes), ...(busy ? ["busy"] : [])], {
    stdio: ["pipe", "pipe", "pipe"],
  })
}

/** Waits for the writer to exit; its last report and its exit code. */
async function finished(
  child: ChildProcessWithoutNullStreams,
): Promise<{ report: Report; code: number | null }> {
  let stderr = ""
  child.stderr.on("data", (chunk) => {
    stderr += chunk
  })
  const code = await new Promise<number | null>((resolve) => child.once("close", resolve))
  const last = stderr.trim().split("\n").at(-1) ?? ""
  try {
    return { report: JSON.parse(last) as Report, code }
  } catch {
    throw new Error(`the writer reported no JSON (exit ${code}):\n${stderr}`)
  }
}

/** Every chunk of the child's stdout, read slower than it writes: the pipe is full most of the time. */
function readSlowly(child: {
  stdout: NodeJS.ReadableStream & { pause(): unknown; resume(): unknown }
}): Buffer[] {
  const chunks: Buffer[] = []
  child.stdout.on("data", (chunk: Buffer) => {
    chunks.push(chunk)
    child.stdout.pause()
    setTimeout(() => child.stdout.resume(), 1)
  })
  return chunks
}

/** Every line the writer wrote, checked byte for byte, in order. */
function expectLines(received: Buffer, lines: number, bytes: number): void {
  const text = received.toString("latin1")
  const got = text.split("\n")
  expect(got.at(-1)).toBe("")
  expect(got.length - 1).toBe(lines)
  for (let n = 0; n < lines; n++) {
    const letter = String.fromCharCode(97 + (n % 26))
    if (got[n] !== `${n}:${letter.repeat(bytes)}`)
      throw new Error(`line ${n} is wrong: ${got[n]?.slice(0, 60)}… (${got[n]?.length} chars)`)
  }
}

describe.skipIf(!onPosix)("DirectOutput (a real socket between two processes)", () => {
  it("a reader that keeps reading, slowly: every line arrives whole and in order, none through the stream", async () => {
    // 120 lines of 43 KB: 5 MB through a socket that holds about 200 KB.
    const child = start(120, 43_000)
    const chunks = readSlowly(child)
    const { report, code } = await finished(child)
    expect(code).toBe(0)
    expectLines(Buffer.concat(chunks), 120, 43_000)
    expect(report).toMatchObject({ done: 120, inOrder: true, errors: [], drained: true })
    // Written straight to the descriptor: libuv's stream never held a byte.
    expect(report.streamPeak).toBe(0)
  })

  it("lines larger than the socket holds (1 MiB each): written in pieces, whole and in order", async () => {
    const child = start(6, 1024 * 1024)
    const chunks = readSlowly(child)
    const { report, code } = await finished(child)
    expect(code).toBe(0)
    expectLines(Buffer.concat(chunks), 6, 1024 * 1024)
    expect(report).toMatchObject({ done: 6, inOrder: true, errors: [], drained: true })
  })

  it("what the socket had no room for goes out within the same turn, as the reader reads", async () => {
    // Without direct writes nothing more could leave before the turn ends: libuv writes between turns.
    const child = start(30, 43_000, true)
    const chunks: Buffer[] = []
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk))
    const { report, code } = await finished(child)
    expect(code).toBe(0)
    expect(report.drainedInTurn).toBe(true)
    expectLines(Buffer.concat(chunks), 30, 43_000)
    expect(report).toMatchObject({ done: 30, inOrder: true, errors: [], drained: true })
  })

  it("a reader that stops for a while: the stream takes over (no timer spins), and everything arrives in order", async () => {
    const child = start(60, 43_000)
    child.stdout.pause()
    const chunks: Buffer[] = []
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk))
    // Far past the writer's retries (they give up after 32 ms without progress).
    await new Promise((resolve) => setTimeout(resolve, 400))
    child.stdout.resume()
    const { report, code } = await finished(child)
    expect(code).toBe(0)
    expectLines(Buffer.concat(chunks), 60, 43_000)
    expect(report).toMatchObject({ done: 60, inOrder: true, errors: [], drained: true })
    // Handed to the stream while the reader was away.
    expect(report.streamPeak).toBeGreaterThan(0)
  })

  it("a reader that goes away: the lines not written fail with EPIPE, and the writer exits normally", async () => {
    const child = start(200, 43_000)
    const first = await new Promise<Buffer>((resolve) => child.stdout.once("data", resolve))
    expect(first.toString("latin1").startsWith("0:a")).toBe(true)
    child.stdout.destroy()
    const { report, code } = await finished(child)
    expect(code).toBe(0)
    expect(report.errors).toEqual(["EPIPE"])
    expect(report.done).toBeLessThan(200)
    expect(report.inOrder).toBe(true)
  })
})

describe.skipIf(!onPosix)("DirectOutput (a real pipe, as Python's subprocess and shells give)", () => {
  it("a reader at the other end of a pipe, late to start then slow: every line arrives whole and in order", async () => {
    // The writer's stdout is a pipe into a shell that waits, then copies it to the test slowly.
    const command = `"${process.execPath}" "${writer}" 80 43000 | (sleep 0.2; dd bs=16384 2>/dev/null)`
    const child = spawn("sh", ["-c", command], { stdio: ["pipe", "pipe", "pipe"] })
    const chunks = readSlowly(child)
    const { report, code } = await finished(child)
    expect(code).toBe(0)
    expectLines(Buffer.concat(chunks), 80, 43_000)
    expect(report).toMatchObject({ done: 80, inOrder: true, errors: [], drained: true })
  })
})

describe("DirectOutput.for", () => {
  it("takes only a stream with a descriptor of its own: not a PassThrough, not a socket without one", () => {
    expect(DirectOutput.for(new PassThrough())).toBeUndefined()
    expect(DirectOutput.for(new Socket())).toBeUndefined()
  })
})
