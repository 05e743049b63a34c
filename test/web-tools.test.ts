// The web tools from the outside: `toolbelt call webfetch` and `toolbelt tools` as users run them, and
// the MCP server's listing (openWorldHint) and a search through it. The loopback servers live in this
// process, so the CLI runs as an asynchronous child (a synchronous one would block them).
import { spawn } from "node:child_process"
import { writeFile } from "node:fs/promises"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { findWorktree } from "../src/compose/worktree.ts"
import { type Loopback, serve } from "../src/platform/net/fixtures/loopback.ts"
import { assessProjectTrust } from "../src/runtime/config/trust/project-trust.ts"
import { TrustStore } from "../src/runtime/config/trust/trust-store.ts"
import { exaStandIn, exaText, type McpStandIn } from "../src/tools/kit/search/fixtures/stand-ins.ts"
import { BIN, cliEnv } from "./fixtures/cli.ts"
import { connectStdio, makeProject, type Project } from "./mcp/helpers.ts"

let site: Loopback
let exa: McpStandIn
let project: Project

beforeAll(async () => {
  site = await serve((_request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" })
    response.end(
      '<html><head><script>track()</script></head><body><h1>Hello</h1><p>See <a href="/next">next</a>.</p></body></html>',
    )
  })
  exa = await exaStandIn()
  project = await makeProject()
})

afterAll(async () => {
  await site.close()
  await exa.close()
  await project.remove()
})

/** Writes the project's config and trusts the project as it now is (its config contacts hosts). */
async function config(value: Record<string, unknown>): Promise<void> {
  await writeFile(`${project.dir}/toolbelt.json`, JSON.stringify(value))
  const env = cliEnv(project.env.HOME!)
  const trust = await assessProjectTrust({ directory: project.dir, worktree: findWorktree(project.dir), env })
  new TrustStore({ env }).trust(project.dir, trust.fingerprint)
}

/** Runs `toolbelt <args>` in the project to its end, without blocking this process's servers. */
function toolbelt(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: project.dir,
      env: cliEnv(project.env.HOME!),
      stdio: ["ignore", "pipe", "pipe"],
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk
    })
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk
    })
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000)
    child.on("error", reject)
    child.on("close", (status) => {
      clearTimeout(timer)
      resolve({ status, stdout, stderr })
    })
  })
}

describe("toolbelt call webfetch", () => {
  it("fetches a page the config opens the guard for, as markdown, and prints the result as JSON", async () => {
    await config({ webfetch: { allow_hosts: ["127.0.0.1"] } })
    const url = `${site.origin}/hello`
    const result = await toolbelt(["call", "webfetch", JSON.stringify({ url }), "--json"])
    expect(result.stderr).toBe("")
    expect(result.status).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({
      status: "completed",
      title: `${url} (text/html; charset=utf-8)`,
      output: `# Hello\n\nSee [next](${site.origin}/next).`,
      metadata: { url, status: 200, cached: false, redirects: 0 },
      attachments: [],
    })
  })

  it("with the guard closed (no config), refuses the loopback address and exits 1", async () => {
    await config({})
    const result = await toolbelt(["call", "webfetch", JSON.stringify({ url: `${site.origin}/hello` })])
    expect(result.status).toBe(1)
    expect(result.stderr).toContain(`Refused to fetch ${site.origin}/hello: 127.0.0.1 is a loopback address.`)
  })
})

describe("toolbelt tools", () => {
  it("lists webfetch, and says why websearch and codesearch are not offered", async () => {
    await config({})
    const result = await toolbelt(["tools"])
    expect(result.status).toBe(0)
    expect(result.stdout).toMatch(/^webfetch +\d+ +Fetches a web page or file by URL/m)
    const notOffered = result.stdout.slice(result.stdout.indexOf("\nNot offered:\n"))
    expect(notOffered).toMatch(
      /^websearch +no search provider is configured: set "websearch": \{"provider": "<name>"\}/m,
    )
    expect(notOffered).toMatch(/^codesearch +code search goes through Exa, which is not configured/m)
  })

  it("lists websearch and codesearch once Exa is configured, and no longer as not offered", async () => {
    await config({ websearch: { provider: "exa", url: exa.url } })
    const result = await toolbelt(["tools"])
    expect(result.stdout).toMatch(/^websearch +\d+ +Searches the web/m)
    expect(result.stdout).toMatch(/^codesearch +\d+ +Searches public code and documentation/m)
    const notOffered = result.stdout.slice(
      result.stdout.indexOf("\nNot offered:\n") + 1 || result.stdout.length,
    )
    expect(notOffered).not.toMatch(/^(websearch|codesearch) /m)
  })
})

describe("toolbelt mcp", () => {
  it("lists the web tools as read-only and open-world, and searches through the configured provider", async () => {
    await config({ websearch: { provider: "exa", url: exa.url } })
    const connected = await connectStdio(project)
    try {
      const { tools } = await connected.client.listTools()
      for (const name of ["webfetch", "websearch", "codesearch"]) {
        const tool = tools.find((entry) => entry.name === name)
        expect(tool?.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: true })
      }
      const answer = await connected.client.callTool({
        name: "websearch",
        arguments: { query: "mcp annotations" },
      })
      expect(answer.isError).not.toBe(true)
      expect(answer.content).toEqual([{ type: "text", text: exaText("mcp annotations") }])
    } finally {
      await connected.close()
    }
  })
})
