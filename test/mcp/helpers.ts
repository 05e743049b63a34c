// Starting `toolbelt mcp` as a real subprocess and driving it with the official MCP client.
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import type { Readable } from "node:stream"
import {
  type CallToolResult,
  Client,
  type ElicitRequestFormParams,
  type ElicitResult,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { expect } from "vitest"

export const root = resolve(import.meta.dirname, "..", "..")
export const bin = join(root, "bin", "toolbelt.js")
/** echo, fail, outside, lines, slow, titled. */
export const basePlugin = join(root, "test", "fixtures", "plugin.ts")
/** steps, picture, measure, noisy, reach, hold, whoami, agent. */
export const mcpPlugin = join(root, "test", "mcp", "fixtures", "plugin.ts")

export interface Project {
  readonly dir: string
  readonly env: Record<string, string>
  remove(): Promise<void>
}

/** A temp project with both fixture plugins (and `extra` merged into its toolbelt.json), and its own home. */
export async function makeProject(extra: Record<string, unknown> = {}): Promise<Project> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-mcp-")))
  const home = await mkdtemp(join(tmpdir(), "toolbelt-mcp-home-"))
  await writeFile(join(dir, "toolbelt.json"), JSON.stringify({ plugin: [basePlugin, mcpPlugin], ...extra }))
  return {
    dir,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: home,
      XDG_CONFIG_HOME: join(home, ".config"),
      TOOLBELT_DATA_DIR: join(home, "data"),
      // The project's plugins are its own code: they load only in a trusted project.
      TOOLBELT_TRUST: "1",
    },
    async remove() {
      await rm(dir, { recursive: true, force: true })
      await rm(home, { recursive: true, force: true })
    },
  }
}

/** The built-in tools registered right now (`toolbelt tools --json` in an empty project). */
export function builtinTools(): Set<string> {
  const result = spawnSync(process.execPath, [bin, "tools", "--json", "--cwd", tmpdir()], {
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", HOME: tmpdir(), XDG_CONFIG_HOME: join(tmpdir(), "nonexistent") },
    timeout: 30_000,
  })
  const tools = JSON.parse(result.stdout) as { name: string }[]
  return new Set(tools.map((tool) => tool.name))
}

export type Answer = (params: ElicitRequestFormParams) => ElicitResult | Promise<ElicitResult>

export interface ClientOptions {
  /** Declares elicitation and answers with this; without it the client cannot show asks. */
  readonly answer?: Answer
  /** `auto` negotiates the 2026-07-28 revision when the server offers it. */
  readonly negotiation?: "legacy" | "auto"
  /** The protocol versions the client speaks (the first is offered at initialize). */
  readonly versions?: string[]
}

export interface Connected {
  readonly client: Client
  /** The forms the client was asked to show. */
  readonly asked: ElicitRequestFormParams[]
  close(): Promise<void>
}

function makeClient(options: ClientOptions): { client: Client; asked: ElicitRequestFormParams[] } {
  const asked: ElicitRequestFormParams[] = []
  const client = new Client(
    { name: "toolbelt-test", version: "1.0.0" },
    {
      capabilities: options.answer ? { elicitation: { form: {} } } : {},
      versionNegotiation: { mode: options.negotiation ?? "legacy" },
      ...(options.versions ? { supportedProtocolVersions: options.versions } : {}),
    },
  )
  const answer = options.answer
  if (answer) {
    client.setRequestHandler("elicitation/create", async (request) => {
      const params = request.params as ElicitRequestFormParams
      asked.push(params)
      return answer(params)
    })
  }
  return { client, asked }
}

export interface StdioConnected extends Connected {
  /** Everything the server wrote to stderr so far. */
  stderr(): string
  readonly pid: number
}

/** Starts `toolbelt mcp --cwd <project>` over stdio and connects to it. */
export async function connectStdio(
  project: Project,
  options: ClientOptions & { args?: string[] } = {},
): Promise<StdioConnected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, "mcp", "--cwd", project.dir, ...(options.args ?? [])],
    env: project.env,
    cwd: project.dir,
    stderr: "pipe",
  })
  let stderr = ""
  ;(transport.stderr as Readable | null)?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const { client, asked } = makeClient(options)
  await client.connect(transport, { timeout: 30_000 })
  return {
    client,
    asked,
    pid: transport.pid ?? -1,
    stderr: () => stderr,
    close: () => client.close(),
  }
}

export interface HttpServer {
  readonly url: string
  readonly child: ChildProcess
  stderr(): string
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>
}

/**
 * The tokens the HTTP servers made up (they need one by default), by port: `connectHttp` and raw.ts's
 * `post` send it, as a configured client would, unless told the headers to send. A token a test
 * chooses (`--token`, `TOOLBELT_MCP_TOKEN`) is the test's to send.
 */
const madeUpTokens = new Map<string, string>()

/** Remembers the token a server made up, so the helpers send it. */
export function rememberToken(url: string, token: string | undefined): void {
  const { port } = new URL(url)
  if (token === undefined) madeUpTokens.delete(port)
  else madeUpTokens.set(port, token)
}

/** The `Authorization` header for a server whose token the helpers remember (none otherwise). */
export function authFor(url: string): Record<string, string> {
  const token = madeUpTokens.get(new URL(url).port)
  return token === undefined ? {} : { authorization: `Bearer ${token}` }
}

/** Starts `toolbelt mcp --http 0 --cwd <project>` and waits for the URL (and the token) it prints. */
export async function startHttp(
  project: Project,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<HttpServer> {
  const child = spawn(process.execPath, [bin, "mcp", "--cwd", project.dir, "--http", "0", ...args], {
    cwd: project.dir,
    env: { ...project.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  })
  let stderr = ""
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL within 30 s; stderr:\n${stderr}`)), 30_000)
    const onData = () => {
      const match = /at (http:\/\/\S+\/mcp)\n/.exec(stderr)
      if (match) {
        clearTimeout(timer)
        child.stderr.off("data", onData)
        rememberToken(match[1]!, /\n {2}token\s+(\S+) \(made up/.exec(stderr)?.[1])
        resolve(match[1]!)
      }
    }
    child.stderr.on("data", onData)
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`toolbelt mcp exited (${code}) before listening; stderr:\n${stderr}`))
    })
  })
  return {
    url,
    child,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM")
      return exited
    },
  }
}

/** Connects an MCP client to the HTTP server (each client is its own MCP session). */
export async function connectHttp(
  url: string,
  options: ClientOptions & { headers?: Record<string, string> } = {},
): Promise<Connected & { readonly sessionId: string | undefined }> {
  const headers = options.headers ?? authFor(url)
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } })
  const { client, asked } = makeClient(options)
  await client.connect(transport, { timeout: 30_000 })
  return {
    client,
    asked,
    sessionId: transport.sessionId,
    async close() {
      await transport.terminateSession().catch(() => {})
      await client.close()
    },
  }
}

/** The text blocks of a result, joined. */
export function textOf(result: unknown): string {
  const { content } = result as CallToolResult
  return content
    .filter((block) => block.type === "text")
    .map((block) => (block as { text: string }).text)
    .join("\n")
}

export async function until(predicate: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000) {
  const start = Date.now()
  while (!(await predicate())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

/** The pids whose command line contains `needle` (Linux /proc). */
export async function processesWith(needle: string): Promise<number[]> {
  const { readdir, readFile } = await import("node:fs/promises")
  const pids: number[] = []
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const cmdline = (await readFile(`/proc/${entry}/cmdline`, "utf8")).replaceAll("\0", " ")
      if (cmdline.includes(needle)) pids.push(Number(entry))
    } catch {
      // gone meanwhile
    }
  }
  return pids
}

/**
 * Starts `sleep <needle>` through the bash tool, cancels the call, and waits until no such process is
 * left: a cancel must kill the command's processes, whatever the transport.
 */
export async function expectCancelledSleepKilled(client: Client, needle: string): Promise<void> {
  const abort = new AbortController()
  const call = client.callTool(
    { name: "bash", arguments: { command: `sleep ${needle}` } },
    { signal: abort.signal },
  )
  await until(async () => (await processesWith(`sleep ${needle}`)).length > 0, "sleep to start")
  abort.abort()
  await expect(call).rejects.toThrow()
  await until(async () => (await processesWith(`sleep ${needle}`)).length === 0, "sleep to be killed", 5_000)
}
