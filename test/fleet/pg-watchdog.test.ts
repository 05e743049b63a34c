// No PostgreSQL server left behind (test/fixtures/postgres.ts): a process that started a fixture server
// and is then killed with SIGKILL (no exit handler runs) takes the server with it, through the
// fixture's watchdog. Skipped, saying why, where no server can start.
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createConnection } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, expect, it } from "vitest"
import { postgresOrSkip } from "../fixtures/postgres.ts"

const pg = await postgresOrSkip()

const cleanups: (() => void)[] = []
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup()
})

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  // A zombie waiting for its parent to reap it has stopped all the same.
  const status = existsSync(`/proc/${pid}/status`) ? readFileSync(`/proc/${pid}/status`, "utf8") : ""
  return !/^State:\s*Z/m.test(status)
}

/** Whether something accepts connections on the loopback port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port })
    socket.once("connect", () => {
      socket.destroy()
      resolve(true)
    })
    socket.once("error", () => resolve(false))
  })
}

pg.describe("the PostgreSQL fixture's watchdog", () => {
  it("stops the server and removes its files within seconds of its starter being SIGKILLed", async () => {
    const scratch = mkdtempSync(join(tmpdir(), "toolbelt-watchdog-"))
    cleanups.push(() => rmSync(scratch, { recursive: true, force: true }))
    const script = join(scratch, "starter.mjs")
    const fixture = new URL("../fixtures/postgres.ts", import.meta.url).href
    writeFileSync(
      script,
      `const { startPostgres } = await import(${JSON.stringify(fixture)})
const server = await startPostgres()
console.log(JSON.stringify({ port: server.port, dir: server.dir }))
setInterval(() => {}, 60_000)
`,
    )
    const child = spawn(process.execPath, [script], { stdio: ["ignore", "pipe", "pipe"] })
    cleanups.push(() => child.kill("SIGKILL"))
    let stderr = ""
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    const started = await new Promise<{ port: number; dir: string }>((resolve, reject) => {
      let stdout = ""
      child.stdout!.on("data", (chunk: Buffer) => {
        stdout += chunk.toString()
        if (stdout.includes("\n")) resolve(JSON.parse(stdout.split("\n")[0]!))
      })
      child.once("exit", (code) => reject(new Error(`the starter exited (${code}): ${stderr}`)))
    })
    const postmaster = Number(
      readFileSync(join(started.dir, "data", "postmaster.pid"), "utf8").split("\n")[0],
    )
    expect(alive(postmaster)).toBe(true)
    expect(await listening(started.port)).toBe(true)

    child.kill("SIGKILL")
    const killed = Date.now()
    while ((alive(postmaster) || existsSync(started.dir)) && Date.now() - killed < 10_000)
      await new Promise((resolve) => setTimeout(resolve, 100))
    const elapsed = Date.now() - killed
    expect(alive(postmaster)).toBe(false)
    expect(existsSync(started.dir)).toBe(false)
    expect(await listening(started.port)).toBe(false)
    expect(elapsed).toBeLessThan(5_000)
    console.log(`pg watchdog: the server was gone ${elapsed} ms after its starter was killed`)
  }, 60_000)
})
