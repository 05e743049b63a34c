// What a new user meets in the first hour, through the command line as they start it: `toolbelt tools`
// says where the schemas are, an MCP server that does not start is listed with its reason, `toolbelt
// run` without a usable model names the local options, and `serve --open` without a browser says so.
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { createToolbelt } from "../src/compose/toolbelt.ts"
import { cliEnv, runCli, runCliAsync, startCli } from "./fixtures/cli.ts"
import { connectStdio } from "./mcp/helpers.ts"

const FIXTURE_SERVER = resolve(
  import.meta.dirname,
  "..",
  "src",
  "adapters",
  "mcp-client",
  "fixtures",
  "server.ts",
)

let project: string
let home: string

beforeEach(async () => {
  project = await mkdtemp(join(tmpdir(), "toolbelt-first-hour-"))
  home = await mkdtemp(join(tmpdir(), "toolbelt-first-hour-home-"))
})

afterEach(async () => {
  await rm(project, { recursive: true, force: true })
  await rm(home, { recursive: true, force: true })
})

/** A loopback port nothing listens on (it was free a moment ago: a connection to it is refused). */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done))
  const { port } = server.address() as { port: number }
  await new Promise<void>((done) => server.close(() => done()))
  return port
}

/** The lines of `toolbelt tools` after "Not offered:". */
const notOffered = (stdout: string): string => stdout.slice(stdout.indexOf("\nNot offered:\n"))

describe("toolbelt tools: the help and the output agree", () => {
  it("the help says the schemas come with --json, and the list says so too", () => {
    const help = runCli(["tools", "--help"], { cwd: project, home })
    expect(help.status).toBe(0)
    // The schemas are promised only for --json, which is where they are printed.
    expect(help.stdout).not.toMatch(/registered for the project, with their JSON Schemas/)
    expect(help.stdout).toMatch(/With --json:\s+every tool's full description and input JSON Schema/)

    const list = runCli(["tools"], { cwd: project, home })
    expect(list.status).toBe(0)
    expect(list.stdout).toMatch(/^read +/m)
    expect(list.stdout).not.toContain('"properties"')
    expect(list.stdout).toContain("Their input JSON Schemas and full descriptions: toolbelt tools --json")

    // --json stays the array of tools, each with its schema.
    const json = runCli(["tools", "--json"], { cwd: project, home })
    const tools = JSON.parse(json.stdout) as { name: string; inputSchema: { type: string } }[]
    expect(Array.isArray(tools)).toBe(true)
    expect(tools.find((tool) => tool.name === "read")?.inputSchema.type).toBe("object")
  })
})

describe("an MCP server that does not start is not offered, with its reason", () => {
  /** Servers that cannot start in three ways, and one that works beside them. */
  async function servers() {
    return {
      good: { type: "local", command: [process.execPath, FIXTURE_SERVER, "stdio"] },
      missing: { type: "local", command: [join(project, "no-such-server")] },
      refused: { type: "remote", url: `http://127.0.0.1:${await closedPort()}/mcp` },
      // Starts, but never answers the handshake.
      silent: {
        type: "local",
        command: [process.execPath, "-e", "process.stdin.resume()"],
        connect_timeout: 500,
      },
    }
  }

  function expectNotOffered(text: string) {
    expect(text).toMatch(/^mcp:missing +MCP server "missing" is not running: could not connect: .*ENOENT/m)
    expect(text).toMatch(/^mcp:refused +MCP server "refused" is not running: could not connect: /m)
    expect(text).toMatch(
      /^mcp:silent +MCP server "silent" is not running: could not connect: .*(timed out|timeout)/im,
    )
    expect(text).toContain('Check its entry under "mcp" in toolbelt.json')
    expect(text).not.toMatch(/^mcp:good /m)
  }

  it("in toolbelt tools of a trusted project, while the server that starts offers its tools", async () => {
    await writeFile(join(project, "toolbelt.json"), JSON.stringify({ mcp: await servers() }))
    const result = await runCliAsync(["tools"], { cwd: project, home, env: { TOOLBELT_TRUST: "1" } })
    expect(result.status).toBe(0)
    expect(result.stdout).toMatch(/^good_echo +.*\[mcp:good\]$/m)
    expectNotOffered(notOffered(result.stdout))
  })

  it("from the user's config, in an untrusted project", async () => {
    await mkdir(join(home, ".config", "toolbelt"), { recursive: true })
    await writeFile(
      join(home, ".config", "toolbelt", "toolbelt.json"),
      JSON.stringify({ mcp: await servers() }),
    )
    const result = await runCliAsync(["tools"], { cwd: project, home })
    expect(result.status).toBe(0)
    expectNotOffered(notOffered(result.stdout))
  })

  it("in the instructions toolbelt mcp gives its client, which still lists the working server's tools", async () => {
    await writeFile(join(project, "toolbelt.json"), JSON.stringify({ mcp: await servers() }))
    const mcp = await connectStdio({
      dir: project,
      env: cliEnv(home, { TOOLBELT_TRUST: "1" }) as Record<string, string>,
      remove: async () => {},
    })
    try {
      const instructions = mcp.client.getInstructions() ?? ""
      expect(instructions).toContain("These MCP servers in the toolbelt config are not running")
      expect(instructions).toMatch(/"missing" \(could not connect: .*ENOENT\)/)
      expect(instructions).toMatch(/"refused" \(could not connect: /)
      expect(instructions).toMatch(/"silent" \(could not connect: /)
      expect(instructions).not.toContain('"good"')
      const { tools } = await mcp.client.listTools()
      expect(tools.map((tool) => tool.name)).toContain("good_echo")
    } finally {
      await mcp.close()
    }
  })

  it("in serve's /api/info, beside the tools that need something configured", async () => {
    await writeFile(join(project, "toolbelt.json"), JSON.stringify({ mcp: await servers() }))
    const serve = startCli(["serve", "--port", "0", "--no-token"], {
      cwd: project,
      home,
      env: { TOOLBELT_TRUST: "1" },
    })
    try {
      const url = await new Promise<string>((resolve, reject) => {
        serve.child.stderr!.on("data", () => {
          const found = /^ {2}API {5}(\S+)\/api /m.exec(serve.stderr())
          if (found) resolve(found[1]!)
        })
        serve.done.then(({ stderr }) => reject(new Error(`serve ended:\n${stderr}`)))
      })
      const info = (await (await fetch(`${url}/api/info`)).json()) as {
        notOffered: { name: string; reason: string }[]
      }
      expectNotOffered(info.notOffered.map(({ name, reason }) => `${name}  ${reason}`).join("\n"))
      expect(info.notOffered.map((entry) => entry.name)).toContain("websearch")
    } finally {
      serve.child.kill("SIGTERM")
      await serve.done
    }
  })

  it("in the library's withheld()", async () => {
    await writeFile(join(project, "toolbelt.json"), JSON.stringify({ mcp: await servers() }))
    const toolbelt = await createToolbelt({
      directory: project,
      trust: true,
      env: { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, ".config") },
      dataDir: join(home, "data"),
      sweep: false,
    })
    try {
      const withheld = await toolbelt.withheld()
      expect(withheld.map((entry) => entry.name)).toEqual(
        expect.arrayContaining(["mcp:missing", "mcp:refused", "mcp:silent"]),
      )
      expect(withheld.map((entry) => entry.name)).not.toContain("mcp:good")
      expect(withheld.find((entry) => entry.name === "mcp:missing")?.reason).toMatch(/ENOENT/)
    } finally {
      await toolbelt.close()
    }
  })
})

describe("toolbelt run without a usable model names the local options", () => {
  const LOCAL = "--model openai-compatible/<id> --base-url http://localhost:11434/v1"

  it("no model at all: every provider, and how to reach a local server", () => {
    const result = runCli(["run", "hello"], { cwd: project, home })
    expect(result.status).toBe(2)
    expect(result.stderr).toContain("no model: pass --model provider/id (or set TOOLBELT_MODEL)")
    for (const provider of ["openai/<id>", "anthropic/<id>", "openai-compatible/<id>"]) {
      expect(result.stderr).toContain(provider)
    }
    expect(result.stderr).toContain(LOCAL)
    expect(result.stderr).toContain("TOOLBELT_BASE_URL")
  })

  it("an unknown provider (ollama/...): the providers known, and the local way", () => {
    const result = runCli(["run", "hello", "--model", "ollama/qwen3"], { cwd: project, home })
    expect(result.status).toBe(2)
    expect(result.stderr).toContain('Unknown provider "ollama"')
    expect(result.stderr).toContain(LOCAL)
    expect(result.stderr).toContain("TOOLBELT_BASE_URL")
  })

  it("a provider whose key is not set: a local model needs none", () => {
    const result = runCli(["run", "hello", "--model", "openai/gpt-5"], { cwd: project, home })
    expect(result.status).toBe(2)
    expect(result.stderr).toContain("OPENAI_API_KEY is not set")
    expect(result.stderr).toContain(LOCAL)
  })
})

describe("toolbelt serve --open without a browser", () => {
  /** Starts `serve --open` and resolves with its stderr once it said it could not open a browser. */
  async function serveOpen(env: NodeJS.ProcessEnv): Promise<string> {
    const serve = startCli(["serve", "--open", "--port", "0", "--no-token"], { cwd: project, home, env })
    try {
      return await new Promise<string>((resolve, reject) => {
        const check = () => {
          if (/no browser could be opened.*\n/.test(serve.stderr())) resolve(serve.stderr())
        }
        serve.child.stderr!.on("data", check)
        serve.done.then(({ stderr }) => reject(new Error(`serve ended before saying so:\n${stderr}`)))
      })
    } finally {
      serve.child.kill("SIGTERM")
      await serve.done
    }
  }

  const pageURL = (stderr: string) => /^ {2}page {4}(\S+)$/m.exec(stderr)?.[1]

  it("no display: says so, and prints the page's URL to open", async () => {
    const stderr = await serveOpen({})
    const url = pageURL(stderr)
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//)
    expect(stderr).toContain(`toolbelt serve: no browser could be opened (no display: `)
    expect(stderr).toContain(`Open the page yourself: ${url}\n`)
  })

  it("an opener that fails: says how it failed, and prints the page's URL", async () => {
    const bin = join(home, "bin")
    await mkdir(bin)
    const opened = join(home, "opened")
    // An xdg-open like the real one on a machine with no browser: it fails with status 3.
    await writeFile(join(bin, "xdg-open"), `#!/bin/sh\necho "$1" > "${opened}"\nexit 3\n`, { mode: 0o755 })
    const stderr = await serveOpen({ DISPLAY: ":99", PATH: `${bin}:${process.env.PATH}` })
    const url = pageURL(stderr)
    expect(stderr).toContain(
      `toolbelt serve: no browser could be opened (xdg-open exited with status 3). Open the page yourself: ${url}\n`,
    )
    expect((await readFile(opened, "utf8")).trim()).toBe(url)
  })
})
