// Memory of a real `toolbelt call bash` whatever the shape of the output: bounded per output and per
// line, so one 200 MB line costs no more than many short ones (issue: one such line took 625 MiB).
import { spawn } from "node:child_process"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const root = resolve(import.meta.dirname, "..")
const bin = join(root, "bin", "toolbelt.js")
const preload = join(root, "test", "fixtures", "report-peak-rss.ts")
/** The goal for the CLI process, whatever the output looks like. */
const MAX_RSS_MIB = 200
let project: string
let home: string

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), "toolbelt-mem-"))
  home = await mkdtemp(join(tmpdir(), "toolbelt-mem-home-"))
})

afterAll(async () => {
  await rm(project, { recursive: true, force: true })
  await rm(home, { recursive: true, force: true })
})

interface Run {
  readonly peakMiB: number
  readonly result: { status: string; output: string; metadata: Record<string, unknown> }
}

function callBash(command: string): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(
      process.execPath,
      [
        "--import",
        preload,
        bin,
        "call",
        "bash",
        JSON.stringify({ command, description: "print a lot" }),
        "--json",
      ],
      {
        cwd: project,
        env: { PATH: process.env.PATH, HOME: home, TOOLBELT_DATA_DIR: join(home, "data") },
        stdio: ["ignore", "pipe", "pipe"],
      },
    )
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (text: string) => (stdout += text))
    child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text))
    child.on("error", fail)
    child.on("close", () => {
      const peak = /peak-rss-kib=(\d+)/.exec(stderr)
      if (!peak) return fail(new Error(`no peak RSS reported; stderr: ${stderr.slice(-2000)}`))
      done({ peakMiB: Number(peak[1]) / 1024, result: JSON.parse(stdout) })
    })
  })
}

describe("memory of toolbelt call bash", () => {
  it("one 200 MB line: under 200 MiB, the end of the line shown and the cut said", async () => {
    const { peakMiB, result } = await callBash("head -c 200000000 /dev/zero | tr '\\0' a")
    expect(result.status).toBe("completed")
    expect(peakMiB).toBeLessThan(MAX_RSS_MIB)
    expect(result.output).toMatch(/Shown: the end of line 1, the last 50\.0 KB of it .*\(190\.7 MB in all\)/)
    expect(result.output).toMatch(/a{50000}$/)
  }, 120_000)

  it("200 MB in 5 million short lines: under 200 MiB", async () => {
    const { peakMiB, result } = await callBash(
      "yes aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa | head -c 200000000",
    )
    expect(result.status).toBe("completed")
    expect(peakMiB).toBeLessThan(MAX_RSS_MIB)
    expect(result.output).toMatch(/Shown: the last \d+ of 5000000 lines/)
  }, 120_000)

  it("a mix of 1 MB lines and short ones: under 200 MiB", async () => {
    const { peakMiB, result } = await callBash(
      "for i in $(seq 1 60); do head -c 1000000 /dev/zero | tr '\\0' b; echo; echo short $i; done",
    )
    expect(result.status).toBe("completed")
    expect(peakMiB).toBeLessThan(MAX_RSS_MIB)
    expect(result.output).toContain("short 60")
  }, 120_000)
})
