// The CLI's stdout written straight to descriptor 1, and terminals told apart without building streams:
// real child processes with their stdout on a pipe, on a slow reader, on a reader that goes away, and
// their stdin on a pipe, on /dev/null and on a real pseudo-terminal (script(1)).
import { spawn, spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const here = fileURLToPath(new URL(".", import.meta.url))
// What the modules under test load is counted after their own import (Node's loader reads files too).
const probe = `const { directStdout } = await import(${JSON.stringify(`${here}direct-stdout.ts`)})
const { isTerminal, processIO } = await import(${JSON.stringify(`${here}io.ts`)})
const before = new Set(process.moduleLoadList)
const loaded = () => process.moduleLoadList.filter((m) => !before.has(m) && m.startsWith("NativeModule ")).map((m) => m.slice(13))
`

function node(code: string, options: { stdin?: "pipe" | "ignore" } = {}) {
  return spawnSync(process.execPath, ["--input-type=module", "-e", `${probe}${code}`], {
    encoding: "utf8",
    stdio: [options.stdin ?? "pipe", "pipe", "pipe"],
    maxBuffer: 64 * 1024 * 1024,
  })
}

describe("directStdout", () => {
  it("writes strings and bytes in order, calls back, and builds no stream for it", () => {
    const result = node(`const out = directStdout()
out.write("one é\\n")
out.write(Buffer.from("two\\n"), () => process.stderr.write("called back\\n"))
out.write("three\\n", "utf8")
const streams = JSON.stringify(loaded().filter((m) => /stream|^net$|^tty$/.test(m)))
process.stderr.write(streams + "\\n")`)
    expect(result.stdout).toBe("one é\ntwo\nthree\n")
    expect(result.stderr).toContain("called back")
    expect(result.stderr).toContain("[]")
  })

  it("hands over to process.stdout once asked for more than writes, keeping the order", () => {
    const result = node(`const out = directStdout()
out.write("direct\\n")
out.once("finish", () => {})
out.write("streamed\\n")
process.stderr.write(String(out === out && typeof out.on === "function"))`)
    expect(result.stdout).toBe("direct\nstreamed\n")
    expect(result.stderr).toBe("true")
  })

  it("delivers every byte of 8 MB to a slow reader", async () => {
    const child = spawn(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `${probe}const out = directStdout(); const line = "x".repeat(1023) + "\\n"
for (let i = 0; i < 8192; i++) out.write(line)`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    )
    let bytes = 0
    child.stdout.on("data", (chunk: Buffer) => {
      bytes += chunk.length
      child.stdout.pause()
      setTimeout(() => child.stdout.resume(), 1)
    })
    const code = await new Promise((resolve) => child.on("close", resolve))
    expect(code).toBe(0)
    expect(bytes).toBe(8 * 1024 * 1024)
  })

  it("ends, without hanging, when its reader goes away (Node's own EPIPE handling from then on)", async () => {
    const child = spawn(
      "/bin/sh",
      [
        "-c",
        `"${process.execPath}" --input-type=module -e '${probe.replaceAll("'", "'\\''")}const out = directStdout(); for (let i = 0; i < 4096; i++) out.write("y".repeat(4096))' | head -c 10`,
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    )
    let out = ""
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk
    })
    const code = await new Promise((resolve) => child.on("close", resolve))
    expect(out).toBe("yyyyyyyyyy")
    expect(code).toBe(0)
  })
})

describe("isTerminal of processIO", () => {
  const ask = `const io = processIO()
console.log(JSON.stringify({ stdin: isTerminal(io, "stdin"), stderr: isTerminal(io, "stderr"), loaded: loaded() }))`

  it("is false for a pipe and for /dev/null, without building a stream or loading node:tty", () => {
    for (const stdin of ["pipe", "ignore"] as const) {
      const result = node(ask, { stdin })
      const answer = JSON.parse(result.stdout) as { stdin: boolean; stderr: boolean; loaded: string[] }
      expect(answer.stdin, stdin).toBe(false)
      expect(answer.stderr, stdin).toBe(false)
      expect(
        answer.loaded.filter((m) => /stream|^net$|^tty$/.test(m)),
        stdin,
      ).toEqual([])
    }
  })

  it.skipIf(!existsSync("/usr/bin/script"))("is true on a real pseudo-terminal", () => {
    const command = `"${process.execPath}" --input-type=module -e '${`${probe}${ask}`.replaceAll("'", "'\\''")}'`
    const result = spawnSync("/usr/bin/script", ["-qec", command, "/dev/null"], { encoding: "utf8" })
    expect(result.stdout).toMatch(/"stdin":true,"stderr":true/)
  })
})
