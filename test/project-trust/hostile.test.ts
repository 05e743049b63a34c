// A hostile repository: every way it could run its code or contact a host, each leaving a marker when
// it does. Untrusted, no marker appears and no request arrives; trusted (store, option, env), they do.
import { existsSync } from "node:fs"
import { chmod, mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { delimiter, join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { createToolbelt, type ToolbeltOptions } from "../../src/compose/toolbelt.ts"
import { assessProjectTrust } from "../../src/runtime/config/trust/project-trust.ts"
import { TrustStore } from "../../src/runtime/config/trust/trust-store.ts"
import { cliEnv, runCliAsync } from "../fixtures/cli.ts"

let root: string
let project: string
let home: string
let markers: string

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-hostile-")))
  project = join(root, "repo")
  home = join(root, "home")
  markers = join(root, "markers")
  await mkdir(join(project, ".git"), { recursive: true })
  await mkdir(home)
  await mkdir(markers)
})

afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

const marker = (name: string) => join(markers, name)
/** Code that leaves a marker when it runs (at import, for modules). */
const writes = (name: string) =>
  `import { writeFileSync } from "node:fs"\nwriteFileSync(${JSON.stringify(marker(name))}, "ran")\n`

async function put(path: string, text: string, mode?: number): Promise<string> {
  const file = join(project, path)
  await mkdir(join(file, ".."), { recursive: true })
  await writeFile(file, text)
  if (mode) await chmod(file, mode)
  return file
}

/** PATH without any node_modules/.bin (vitest's own puts this repository's first). */
const PATH = (process.env.PATH ?? "")
  .split(delimiter)
  .filter((dir) => !dir.includes("node_modules"))
  .join(delimiter)

const env = (extra: NodeJS.ProcessEnv = {}) => cliEnv(home, { PATH, ...extra })

async function open(options: Partial<ToolbeltOptions> = {}) {
  return createToolbelt({
    directory: project,
    store: "memory",
    sweep: false,
    env: env(),
    dataDir: join(home, "data"),
    ...options,
  })
}

/** A loopback HTTP server that records every request it gets. */
async function recorder(): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = []
  const server: Server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`)
    response.writeHead(500).end()
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

/** A project that tries every way in at once. */
async function hostile(remote: string): Promise<void> {
  await put(".toolbelt/tools/evil.ts", `${writes("tool-file")}export default {}\n`)
  await put(".opencode/tool/evil.mjs", `${writes("opencode-tool-file")}export default {}\n`)
  await put("plugins/evil.mjs", `${writes("plugin-path")}export default { tool: {} }\n`)
  await put(
    "node_modules/evil-plugin/package.json",
    JSON.stringify({ name: "evil-plugin", main: "index.mjs" }),
  )
  await put("node_modules/evil-plugin/index.mjs", `${writes("plugin-package")}export default { tool: {} }\n`)
  await put(
    "toolbelt.json",
    JSON.stringify({
      plugin: ["./plugins/evil.mjs", "evil-plugin"],
      mcp: {
        local: { type: "local", command: ["sh", "-c", `touch ${marker("mcp-command")}`] },
        remote: { type: "remote", url: remote },
      },
    }),
  )
}

const ALL = ["tool-file", "opencode-tool-file", "plugin-path", "plugin-package", "mcp-command"]
const ran = () => ALL.filter((name) => existsSync(marker(name)))

describe("an untrusted project runs nothing and contacts no one", () => {
  it("through the library: no tool file, plugin or MCP server, and what was left out is said", async () => {
    const server = await recorder()
    try {
      await hostile(server.url)
      const toolbelt = await open()
      expect(toolbelt.trust).toMatchObject({ trusted: false, reason: "untrusted" })
      expect(toolbelt.trust.leftOut.map(({ kind }) => kind).sort()).toEqual([
        "mcp-server",
        "mcp-server",
        "plugin",
        "plugin",
        "tool-file",
        "tool-file",
      ])
      expect(toolbelt.trust.howToTrust).toBe(`toolbelt trust ${project}`)
      // Left out is not an error.
      expect(toolbelt.pluginErrors).toEqual([])
      expect(toolbelt.mcp).toBeUndefined()
      expect(
        await toolbelt.call({ tool: "read", input: { filePath: join(project, "toolbelt.json") } }),
      ).toMatchObject({
        status: "completed",
      })
      await toolbelt.close()
      expect(ran()).toEqual([])
      expect(server.requests).toEqual([])
    } finally {
      await server.close()
    }
  })

  it("through the command line: call read, tools and permissions", async () => {
    const server = await recorder()
    try {
      await hostile(server.url)
      for (const args of [
        ["call", "read", JSON.stringify({ filePath: join(project, "toolbelt.json") }), "--json"],
        ["tools", "--json"],
        ["permissions"],
      ]) {
        const result = await runCliAsync(args, { cwd: project, home, env: { PATH } })
        expect(result.status, `${args[0]}: ${result.stderr}`).toBe(0)
      }
      expect(ran()).toEqual([])
      expect(server.requests).toEqual([])
    } finally {
      await server.close()
    }
  })

  it("a user's plugin named as a package is not taken from the project's node_modules", async () => {
    await mkdir(join(home, ".config", "toolbelt"), { recursive: true })
    await writeFile(join(home, ".config", "toolbelt", "toolbelt.json"), JSON.stringify({ plugin: ["mine"] }))
    await put("node_modules/mine/package.json", JSON.stringify({ name: "mine", main: "index.mjs" }))
    await put("node_modules/mine/index.mjs", `${writes("user-plugin")}export default { tool: {} }\n`)
    await put(".toolbelt/tools/t.ts", "export default {}\n")
    const toolbelt = await open()
    expect(toolbelt.trust.trusted).toBe(false)
    expect(toolbelt.pluginErrors).toEqual([
      { spec: "mine", error: expect.stringContaining("not looked for in the project's node_modules") },
    ])
    await toolbelt.close()
    expect(existsSync(marker("user-plugin"))).toBe(false)
  })
})

describe("a trusted project's contributions run", () => {
  it.each([
    [
      "the store",
      async () => {
        const trust = await assessProjectTrust({ directory: project, worktree: project, env: env() })
        new TrustStore({ env: env() }).trust(project, trust.fingerprint)
        return { reason: "store" }
      },
    ],
    ["the option", async () => ({ reason: "option", options: { trust: true } })],
    ["TOOLBELT_TRUST=1", async () => ({ reason: "env", options: { env: env({ TOOLBELT_TRUST: "1" }) } })],
  ] as const)("trusted by %s", async (_name, trustIt) => {
    const server = await recorder()
    try {
      await hostile(server.url)
      const how: { reason: string; options?: Partial<ToolbeltOptions> } = await trustIt()
      const toolbelt = await open(how.options)
      expect(toolbelt.trust).toMatchObject({ trusted: true, reason: how.reason, leftOut: [] })
      await toolbelt.close()
      expect(ran()).toEqual(ALL)
      expect(server.requests.length).toBeGreaterThan(0)
    } finally {
      await server.close()
    }
  })

  it("through the command line with TOOLBELT_TRUST=1", async () => {
    await put(".toolbelt/tools/evil.ts", `${writes("tool-file")}export default {}\n`)
    const result = await runCliAsync(["tools", "--json"], {
      cwd: project,
      home,
      env: { PATH, TOOLBELT_TRUST: "1" },
    })
    expect(result.status, result.stderr).toBe(0)
    expect(existsSync(marker("tool-file"))).toBe(true)
  })

  it("is untrusted again once a tool file changes after it was trusted", async () => {
    const tool = await put(".toolbelt/tools/evil.ts", "export default {}\n")
    const trust = await assessProjectTrust({ directory: project, worktree: project, env: env() })
    new TrustStore({ env: env() }).trust(project, trust.fingerprint)
    await writeFile(tool, `${writes("tool-file")}export default {}\n`)
    const toolbelt = await open()
    expect(toolbelt.trust).toMatchObject({ trusted: false, reason: "changed" })
    await toolbelt.close()
    expect(existsSync(marker("tool-file"))).toBe(false)
  })
})

describe("language servers", () => {
  /** A program that leaves a marker when started. */
  const program = (name: string) => `#!/bin/sh\ntouch ${marker(name)}\n`

  async function edit(options: Partial<ToolbeltOptions> = {}) {
    const toolbelt = await open(options)
    const file = join(project, "src", "a.ts")
    await mkdir(join(project, "src"), { recursive: true })
    await toolbelt.call({ tool: "write", input: { filePath: file, content: "export const a = 1\n" } })
    await toolbelt.call({ tool: "write", input: { filePath: join(project, "a.evil"), content: "x\n" } })
    await toolbelt.close()
    return toolbelt
  }

  it("an untrusted project's lsp.command and its node_modules/.bin server do not run at an edit", async () => {
    await put("bin/evil-ls", program("lsp-command"), 0o755)
    await put("node_modules/.bin/typescript-language-server", program("project-bin"), 0o755)
    await put(
      "toolbelt.json",
      JSON.stringify({ lsp: { evil: { command: ["./bin/evil-ls"], extensions: [".evil"] } } }),
    )
    const toolbelt = await edit()
    expect(toolbelt.trust.trusted).toBe(false)
    expect(existsSync(marker("lsp-command"))).toBe(false)
    expect(existsSync(marker("project-bin"))).toBe(false)
  })

  it("a project that needs no trust step still does not run its own server binary", async () => {
    await put("node_modules/.bin/typescript-language-server", program("project-bin"), 0o755)
    const toolbelt = await edit()
    expect(toolbelt.trust.reason).toBe("not-needed")
    expect(existsSync(marker("project-bin"))).toBe(false)
  })

  it("a trusted project's lsp.command and node_modules/.bin server run", async () => {
    await put("bin/evil-ls", program("lsp-command"), 0o755)
    await put("node_modules/.bin/typescript-language-server", program("project-bin"), 0o755)
    await put(
      "toolbelt.json",
      JSON.stringify({ lsp: { evil: { command: ["./bin/evil-ls"], extensions: [".evil"] } } }),
    )
    await edit({ trust: true })
    expect(existsSync(marker("lsp-command"))).toBe(true)
    expect(existsSync(marker("project-bin"))).toBe(true)
  })
})
