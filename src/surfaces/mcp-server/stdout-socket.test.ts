import { spawn } from "node:child_process"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { widenStdoutSocket } from "./stdout-socket.ts"

const fixture = join(import.meta.dirname, "fixtures", "widen-stdout.ts")
const onLinux = process.platform === "linux"

interface Report {
  widened: { before: number; after: number } | null
  fits: number
}

/** Runs the fixture with `command` around it, its stdout never read; its report. */
async function run(command: string, args: string[]): Promise<Report> {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] })
  child.stdout.pause()
  let stderr = ""
  child.stderr.on("data", (chunk) => {
    stderr += chunk
  })
  await new Promise((resolve) => child.once("exit", resolve))
  child.stdout.destroy()
  try {
    return JSON.parse(stderr.trim().split("\n").at(-1) ?? "") as Report
  } catch {
    throw new Error(`the fixture reported no JSON:\n${stderr}`)
  }
}

describe.skipIf(!onLinux)("widenStdoutSocket (Linux)", () => {
  it("a socket given as stdout (what Node's spawn gives): its send buffer grows, and holds that much more", async () => {
    const report = await run(process.execPath, [fixture])
    expect(report.widened).not.toBeNull()
    const { before, after } = report.widened!
    expect(after).toBeGreaterThan(before)
    // What fits before the socket is full follows the buffer (the kernel counts its overhead too).
    expect(report.fits).toBeGreaterThan(before)
    expect(report.fits).toBeGreaterThan(after / 4)
  })

  it("a pipe given as stdout (what a shell or Python gives): left as it is, no helper started", async () => {
    const report = await run("sh", ["-c", `"${process.execPath}" "${fixture}" | sleep 2`])
    expect(report.widened).toBeNull()
    // A pipe holds 64 KB.
    expect(report.fits).toBeLessThan(1024 * 1024)
  })

  it("a descriptor that is not open: undefined, never a throw", async () => {
    await expect(widenStdoutSocket({ fd: 987 })).resolves.toBeUndefined()
  })
})
