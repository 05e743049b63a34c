// webfetch's bounds measured where they matter: in a `toolbelt call webfetch` process of its own, its
// peak memory read by the process itself at exit (a preload prints process.resourceUsage().maxRSS).
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Loopback, serve } from "../../platform/net/fixtures/loopback.ts"
import { nestedSpans, pdfBomb } from "./fixtures/media.ts"

const CLI = fileURLToPath(new URL("../../../bin/toolbelt.js", import.meta.url))
// How long past its own timeout a call may take before it counts as hung: start-up from the sources
// and a slow shared machine, not the work.
const HANG_MARGIN_MS = 60_000

let dir: string
let site: Loopback

beforeAll(async () => {
  const bomb = await pdfBomb(512 * 1024 * 1024)
  const pages: Record<string, string> = {
    "/nested-64k": nestedSpans(64 * 1024),
    "/nested-1m": nestedSpans(1024 * 1024),
  }
  site = await serve((request, response) => {
    const path = new URL(request.url ?? "/", "http://x").pathname
    if (path === "/bomb.pdf") {
      response.writeHead(200, { "content-type": "application/pdf" })
      return response.end(bomb)
    }
    response.writeHead(200, { "content-type": "text/html" })
    response.end(pages[path] ?? "")
  })
  dir = mkdtempSync(join(tmpdir(), "toolbelt-webfetch-bounds-"))
  writeFileSync(join(dir, "toolbelt.json"), JSON.stringify({ webfetch: { allow_hosts: ["127.0.0.1"] } }))
  // Every Node process of the run (the launcher may hand over to another) says its own peak at exit.
  writeFileSync(
    join(dir, "peak.mjs"),
    'process.on("exit", () => process.stderr.write("\\npeak-rss-kb " + process.resourceUsage().maxRSS + "\\n"))\n',
  )
}, 60_000)

afterAll(async () => {
  await site?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

/** Runs one webfetch call in a process of its own: its exit, stderr, the peak RSS of its largest Node process. */
function callInChild(
  input: Record<string, unknown> & { timeout: number },
): Promise<{ code: number | null; stderr: string; peakMb: number; hung: boolean }> {
  const child = spawn(process.execPath, [CLI, "call", "webfetch", JSON.stringify(input), "--yes"], {
    cwd: dir,
    env: {
      ...process.env,
      TOOLBELT_TRUST: "1",
      NODE_OPTIONS: `--import=${join(dir, "peak.mjs")}`,
    },
    stdio: ["ignore", "ignore", "pipe"],
  })
  let stderr = ""
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8")
  })
  let hung = false
  const guard = setTimeout(
    () => {
      hung = true
      child.kill("SIGKILL")
    },
    input.timeout * 1000 + HANG_MARGIN_MS,
  )
  return new Promise((resolve) =>
    child.on("close", (code) => {
      clearTimeout(guard)
      const peaks = [...stderr.matchAll(/peak-rss-kb (\d+)/g)].map((match) => Number(match[1]))
      resolve({ code, stderr, peakMb: Math.max(0, ...peaks) / 1024, hung })
    }),
  )
}

describe("webfetch's bounds, in a process of its own", () => {
  it("the 0.5 MB PDF that inflates to 512 MiB peaks under 400 MiB and ends within its timeout, refused with a message", async () => {
    const run = await callInChild({ url: `${site.origin}/bomb.pdf`, timeout: 10 })
    expect(run.hung).toBe(false)
    expect(run.code).toBe(1)
    expect(run.stderr).toContain("was stopped: its compressed streams decode to more than 128 MB")
    expect(run.peakMb).toBeGreaterThan(0)
    expect(run.peakMb).toBeLessThan(400)
  }, 120_000)

  it.each([
    ["64 KiB", "/nested-64k"],
    ["1 MiB", "/nested-1m"],
  ])(
    "%s of nested <div><span> ends within its timeout, refused with a message",
    async (_size, path) => {
      const run = await callInChild({ url: `${site.origin}${path}`, timeout: 3 })
      expect(run.hung).toBe(false)
      expect(run.code).toBe(1)
      expect(run.stderr).toContain("the page nests elements more than 2048 deep")
      expect(run.stderr).not.toContain("Maximum call stack")
    },
    120_000,
  )
})
