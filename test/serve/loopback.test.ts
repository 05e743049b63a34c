// Loopback is not a boundary between the accounts of one machine: `toolbelt serve` and `toolbelt mcp
// --http` need a token by default (printed at start, with serve's one-time login link), `--no-token`
// opts out loudly, and `--socket PATH` serves on a Unix socket of mode 0600 instead. As root, another
// account's attempts run as `nobody` in a child process (from outside the checkout, which `nobody` may
// not be able to enter); elsewhere those attempts are skipped, saying why.
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { chmod, lstat, mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Agent, fetch as undiciFetch } from "undici"
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest"
import { openOtherAccount } from "../fixtures/other-account.ts"
import { anonymous, bin, makeProject, type Project, startServe } from "./helpers.ts"

const nobody = await openOtherAccount()
/** Whether another account's attempts can run here; where not, the skip says why. */
const otherAccountHere = !("skip" in nobody)
if ("skip" in nobody) {
  console.warn(`test/serve/loopback.test.ts: skipping another account's attempts: ${nobody.skip}.`)
}
afterAll(async () => {
  if (!("skip" in nobody)) await nobody.close()
})

let project: Project
/** A folder every account may enter, for sockets whose own mode is what is tested. */
let open: string
beforeEach(async () => {
  project = await makeProject()
  open = await realpath(await mkdtemp(join(tmpdir(), "tb-sock-")))
  await chmod(open, 0o755)
})
afterEach(async () => {
  await project.remove()
  await rm(open, { recursive: true, force: true })
})

/** Runs `script` (CommonJS, Node's globals) as `nobody`; its stdout, trimmed. */
function asNobody(script: string, ...args: string[]): string {
  if ("skip" in nobody) throw new Error(nobody.skip)
  const result = nobody.node(["-e", script, ...args])
  if (result.status !== 0) throw new Error(`the script as nobody failed: ${result.stderr}`)
  return result.stdout.trim()
}

/** What `nobody` gets from a request to `url` with these headers: the status, or the error's code. */
const FETCH_AS_NOBODY = `
const [url, headers] = process.argv.slice(1)
fetch(url, { method: "POST", headers: JSON.parse(headers), body: process.argv[3] ?? "{}" })
  .then((r) => console.log(r.status), (e) => console.log(e.cause?.code ?? e.message))`

/**
 * What `nobody` gets trying to write a file through the API: opens a session, then calls `write`; the
 * statuses, space-separated.
 */
const WRITE_AS_NOBODY = `
const [url, target] = process.argv.slice(1)
const json = { "content-type": "application/json" }
;(async () => {
  const opened = await fetch(url + "/api/sessions", { method: "POST", headers: json, body: "{}" })
  const id = opened.ok ? (await opened.json()).id : "ses_none"
  const input = { filePath: target, content: "owned\\n" }
  const called = await fetch(url + "/api/sessions/" + id + "/calls", {
    method: "POST", headers: json, body: JSON.stringify({ tool: "write", input }),
  })
  console.log(opened.status + " " + called.status)
})()`

/** What `nobody` gets connecting to a Unix socket: "connected", or the error's code. */
const CONNECT_AS_NOBODY = `
const socket = require("node:net").connect(process.argv[1])
socket.on("connect", () => { console.log("connected"); socket.destroy() })
socket.on("error", (e) => console.log(e.code))`

interface Command {
  readonly child: ChildProcess
  stderr(): string
  stop(): Promise<number | null>
}

/** Starts `toolbelt <args>` (under `umask` when given) and waits until its stderr matches `ready`. */
async function start(args: string[], ready: RegExp, umask?: string): Promise<Command> {
  const [command, ...argv] =
    umask === undefined
      ? [process.execPath, bin, ...args]
      : ["/bin/sh", "-c", `umask ${umask} && exec "$0" "$@"`, process.execPath, bin, ...args]
  const child = spawn(command!, argv, { env: project.env, stdio: ["ignore", "pipe", "pipe"] })
  let stderr = ""
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
      if (ready.test(stderr)) resolve()
    })
    child.once("exit", (code) =>
      reject(new Error(`toolbelt exited (${code}) before it was ready:\n${stderr}`)),
    )
  })
  return {
    child,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM")
      return exited
    },
  }
}

/** A fetch that goes over a Unix socket (undici's dispatcher), as MCP clients' transports take. */
function socketFetch(path: string): typeof fetch {
  const dispatcher = new Agent({ connect: { socketPath: path } })
  return ((input: string | URL, init?: RequestInit) =>
    undiciFetch(input, { ...(init as object), dispatcher } as never)) as unknown as typeof fetch
}

/** An MCP client (the SDK's) of the endpoint, through `fetchLike`, with these headers. */
async function mcpClient(url: string, options: { fetch?: typeof fetch; headers?: Record<string, string> }) {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.headers ? { requestInit: { headers: options.headers } } : {}),
  })
  const client = new Client({ name: "loopback-test", version: "1.0.0" })
  await client.connect(transport, { timeout: 30_000 })
  return {
    client,
    async close() {
      await transport.terminateSession().catch(() => {})
      await client.close()
    },
  }
}

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
})
const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" }

describe("toolbelt serve on loopback needs a token by default", () => {
  it("makes one up and prints it with a one-time login link; nothing answers without it", async () => {
    const serve = await startServe(project)
    try {
      const token = /\n {2}token\s+(\S+) \(made up/.exec(serve.stderr())?.[1]
      expect(token).toMatch(/^[\w-]{32,}$/)
      expect(serve.pageURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?login=[\w-]{20,}$/)
      for (const path of ["/api/info", "/api/sessions", "/events"]) {
        const refused = await anonymous(serve.url, "GET", path)
        expect(refused.status, path).toBe(401)
      }
      expect((await anonymous(serve.url, "POST", "/mcp", INITIALIZE, MCP_HEADERS)).status).toBe(401)
      const bearer = { authorization: `Bearer ${token}` }
      expect((await anonymous(serve.url, "GET", "/api/info", undefined, bearer)).body.auth).toBe(true)
      const mcp = await mcpClient(`${serve.url}/mcp`, { headers: bearer })
      expect((await mcp.client.listTools()).tools.map((tool) => tool.name)).toContain("read")
      await mcp.close()

      // The login link sets the page's cookie once, then is used up.
      const login = await fetch(serve.pageURL, { redirect: "manual" })
      expect(login.status).toBe(303)
      expect(login.headers.get("location")).toBe("/")
      const cookie = login.headers.get("set-cookie")!.split(";")[0]!
      expect((await anonymous(serve.url, "GET", "/api/info", undefined, { cookie })).status).toBe(200)
      const again = await fetch(serve.pageURL, { redirect: "manual" })
      expect(again.headers.get("set-cookie")).toBeNull()
    } finally {
      expect(await serve.stop()).toBe(0)
    }
  })

  it.skipIf(!otherAccountHere)(
    "another account gets 401 from the API and /mcp, and writes nothing",
    async () => {
      const serve = await startServe(project)
      try {
        const target = join(open, "written-by-nobody.txt")
        await chmod(open, 0o777)
        expect(asNobody(WRITE_AS_NOBODY, serve.url, target)).toBe("401 401")
        expect(asNobody(FETCH_AS_NOBODY, `${serve.url}/mcp`, JSON.stringify(MCP_HEADERS), INITIALIZE)).toBe(
          "401",
        )
        await expect(lstat(target)).rejects.toMatchObject({ code: "ENOENT" })
      } finally {
        await serve.stop()
      }
    },
  )
})

describe("toolbelt mcp --http on loopback needs a token by default", () => {
  it("prints the token it made up; no token and a wrong one get 401; the printed one works", async () => {
    const mcp = await start(["mcp", "--cwd", project.dir, "--http", "0"], /token\s+\S+ \(made up[^\n]*\n/)
    try {
      const url = /at (http:\/\/\S+\/mcp)/.exec(mcp.stderr())![1]!
      const token = /\n {2}token\s+(\S+) \(made up/.exec(mcp.stderr())![1]!
      expect(mcp.stderr()).toContain('"Authorization: Bearer <token>"')
      const refused = await fetch(url, { method: "POST", headers: MCP_HEADERS, body: INITIALIZE })
      expect(refused.status).toBe(401)
      expect(await refused.text()).toContain("Authorization: Bearer")
      const wrong = { ...MCP_HEADERS, authorization: "Bearer wrong" }
      expect((await fetch(url, { method: "POST", headers: wrong, body: INITIALIZE })).status).toBe(401)
      await expect(mcpClient(url, {})).rejects.toThrow()
      const client = await mcpClient(url, { headers: { authorization: `Bearer ${token}` } })
      expect((await client.client.listTools()).tools.map((tool) => tool.name)).toContain("read")
      await client.close()
      if (otherAccountHere) {
        expect(asNobody(FETCH_AS_NOBODY, url, JSON.stringify(MCP_HEADERS), INITIALIZE)).toBe("401")
      }
    } finally {
      expect(await mcp.stop()).toBe(0)
    }
  })

  it("/mcp refuses another port of localhost and Sec-Fetch-Site: cross-site, as the API does", async () => {
    const mcp = await start(
      ["mcp", "--cwd", project.dir, "--http", "0", "--token", "t0ken"],
      /at http:\/\/\S+\/mcp/,
    )
    try {
      const url = /at (http:\/\/\S+\/mcp)/.exec(mcp.stderr())![1]!
      const port = Number(new URL(url).port)
      const headers = { ...MCP_HEADERS, authorization: "Bearer t0ken" }
      const post = (extra: Record<string, string>) =>
        fetch(url, { method: "POST", headers: { ...headers, ...extra }, body: INITIALIZE })
      const refusedHeaders: Record<string, string>[] = [
        { origin: `http://localhost:${port + 1}` },
        { origin: `http://127.0.0.1:${port + 1}` },
        { "sec-fetch-site": "cross-site" },
      ]
      for (const extra of refusedHeaders) {
        const refused = await post(extra)
        expect(refused.status, JSON.stringify(extra)).toBe(403)
        await refused.body?.cancel()
      }
      const own = await post({ origin: `http://127.0.0.1:${port}`, "sec-fetch-site": "same-origin" })
      expect(own.status).toBe(200)
      await own.body?.cancel()
    } finally {
      await mcp.stop()
    }
  })
})

describe("--no-token", () => {
  it("serve: no token is needed, and every start warns who can now use it and names --socket", async () => {
    const serve = await startServe(project, ["--no-token"])
    try {
      expect(serve.stderr()).not.toMatch(/\n {2}token/)
      expect(serve.pageURL).toBe(`${serve.url}/`)
      expect((await anonymous(serve.url, "GET", "/api/info")).body.auth).toBe(false)
      await expect.poll(() => serve.stderr()).toContain("WARNING: --no-token")
      expect(serve.stderr()).toContain("every account on this machine")
      expect(serve.stderr()).toContain("--socket PATH")
    } finally {
      await serve.stop()
    }
  })

  it("mcp --http: the same, and beyond loopback it is refused", async () => {
    const mcp = await start(["mcp", "--cwd", project.dir, "--http", "0", "--no-token"], /WARNING[^\n]*\n/)
    try {
      const url = /at (http:\/\/\S+\/mcp)/.exec(mcp.stderr())![1]!
      expect(mcp.stderr()).toContain("every account on this machine")
      expect(mcp.stderr()).toContain("--socket PATH")
      const client = await mcpClient(url, {})
      expect((await client.client.listTools()).tools.length).toBeGreaterThan(0)
      await client.close()
    } finally {
      await mcp.stop()
    }
    const wide = spawnSync(
      process.execPath,
      [bin, "mcp", "--cwd", project.dir, "--http", "0", "--host", "0.0.0.0", "--no-token"],
      { encoding: "utf8", env: project.env, timeout: 30_000 },
    )
    expect(wide.status).toBe(2)
    expect(wide.stderr).toContain("without a token would let other machines run tools")
  })

  it("contradicting flags are usage errors", () => {
    const run = (args: string[]) =>
      spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", env: project.env, timeout: 30_000 })
    const both = run(["serve", "--cwd", project.dir, "--token", "t", "--no-token"])
    expect(both.status).toBe(2)
    expect(both.stderr).toContain("--token and --no-token contradict each other")
    const socketAndPort = run(["serve", "--cwd", project.dir, "--socket", join(open, "s"), "--port", "0"])
    expect(socketAndPort.status).toBe(2)
    expect(socketAndPort.stderr).toContain("--socket replaces --port and --host")
    const socketAndHttp = run(["mcp", "--cwd", project.dir, "--socket", join(open, "s"), "--http", "0"])
    expect(socketAndHttp.status).toBe(2)
    expect(socketAndHttp.stderr).toContain("--socket replaces --http PORT and --host")
  })
})

describe("--socket", () => {
  it("serve: answers over the socket without a token; the socket is 0600 and gone after exit", async () => {
    const path = join(open, "serve.sock")
    const serve = await start(["serve", "--cwd", project.dir, "--socket", path], /\n {2}MCP [^\n]*\n/)
    try {
      expect(serve.stderr()).toContain(`socket  ${path} (mode 0600`)
      expect(serve.stderr()).not.toMatch(/\n {2}token/)
      const stat = await lstat(path)
      expect(stat.isSocket()).toBe(true)
      expect(stat.mode & 0o777).toBe(0o600)
      const viaSocket = socketFetch(path)
      const info = await viaSocket("http://localhost/api/info")
      expect(info.status).toBe(200)
      expect(((await info.json()) as { auth: boolean }).auth).toBe(false)
      // /mcp over the socket, with the SDK's client.
      const mcp = await mcpClient("http://localhost/mcp", { fetch: viaSocket })
      expect((await mcp.client.listTools()).tools.map((tool) => tool.name)).toContain("read")
      await mcp.close()
      // The Origin rules hold over the socket too.
      const cross = await viaSocket("http://localhost/api/sessions", {
        method: "POST",
        headers: { "content-type": "application/json", "sec-fetch-site": "cross-site" },
        body: "{}",
      })
      expect(cross.status).toBe(403)
      if (otherAccountHere) expect(asNobody(CONNECT_AS_NOBODY, path)).toBe("EACCES")
    } finally {
      expect(await serve.stop()).toBe(0)
    }
    await expect(lstat(path)).rejects.toMatchObject({ code: "ENOENT" })
  })

  it("mcp: streamable HTTP on the socket, to the SDK's client; 0600 under a wide umask; removed on exit", async () => {
    const path = join(open, "mcp.sock")
    // A umask that would leave a socket bound in place open to every account.
    const mcp = await start(
      ["mcp", "--cwd", project.dir, "--socket", path],
      /at http:\/\/localhost\/mcp[\s\S]*socket[^\n]*\n/,
      "000",
    )
    try {
      expect((await lstat(path)).mode & 0o777).toBe(0o600)
      const client = await mcpClient("http://localhost/mcp", { fetch: socketFetch(path) })
      expect((await client.client.listTools()).tools.map((tool) => tool.name)).toContain("read")
      await client.close()
      if (otherAccountHere) expect(asNobody(CONNECT_AS_NOBODY, path)).toBe("EACCES")
    } finally {
      expect(await mcp.stop()).toBe(0)
    }
    await expect(lstat(path)).rejects.toMatchObject({ code: "ENOENT" })
  })

  it("replaces a stale socket, and refuses a file, a folder or a socket a server answers on", async () => {
    const run = (path: string) =>
      spawnSync(process.execPath, [bin, "mcp", "--cwd", project.dir, "--socket", path], {
        encoding: "utf8",
        env: project.env,
        timeout: 30_000,
      })
    const file = join(open, "file")
    await writeFile(file, "keep me\n")
    const refusedFile = run(file)
    expect(refusedFile.status).toBe(2)
    expect(refusedFile.stderr).toContain("exists and is not a socket")
    expect((await lstat(file)).isFile()).toBe(true)
    const folder = join(open, "folder")
    await mkdir(folder)
    expect(run(folder).stderr).toContain("exists and is not a socket")

    const live = join(open, "live.sock")
    const server = createServer()
    await new Promise<void>((resolve) => server.listen(live, resolve))
    try {
      const busy = run(live)
      expect(busy.status).toBe(2)
      expect(busy.stderr).toContain("already listening")
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }

    // A socket left behind by a server that died: nothing answers on it, so it is replaced.
    const stale = join(open, "stale.sock")
    const dead = spawnSync(
      process.execPath,
      ["-e", `require("node:net").createServer().listen(${JSON.stringify(stale)}, () => process.exit(0))`],
      { timeout: 20_000 },
    )
    expect(dead.status).toBe(0)
    expect((await lstat(stale)).isSocket()).toBe(true)
    const mcp = await start(["mcp", "--cwd", project.dir, "--socket", stale], /socket[^\n]*\n/)
    try {
      const client = await mcpClient("http://localhost/mcp", { fetch: socketFetch(stale) })
      await client.close()
    } finally {
      await mcp.stop()
    }
  })
})
