import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { loadConfigLayers } from "../config.ts"
import { assessProjectTrust, configFor } from "./project-trust.ts"
import { TrustStore } from "./trust-store.ts"

let root: string
let project: string
let home: string
let env: NodeJS.ProcessEnv

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-project-trust-")))
  project = join(root, "repo")
  home = join(root, "home")
  await mkdir(join(project, ".git"), { recursive: true })
  await mkdir(home)
  env = { HOME: home, PATH: process.env.PATH }
})

afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

async function put(path: string, text: string): Promise<string> {
  const file = join(project, path)
  await mkdir(dirname(file), { recursive: true })
  await writeFile(file, text)
  return file
}

const assess = (options: { trust?: boolean; env?: NodeJS.ProcessEnv } = {}) =>
  assessProjectTrust({ directory: project, worktree: project, env: options.env ?? env, ...options })

describe("assessProjectTrust", () => {
  it("needs no trust step for a project that only limits output and denies", async () => {
    await put(
      "toolbelt.json",
      JSON.stringify({
        $schema: "x",
        tool_output: { max_lines: 10 },
        permission: { bash: { "*": "ask", "rm *": "deny" } },
        agent: { build: { permission: { edit: "deny" }, tools: { bash: false } } },
      }),
    )
    await put(
      ".toolbelt/agents/review.md",
      "---\npermission:\n  edit: deny\ntools:\n  bash: false\n---\nReview.\n",
    )
    const trust = await assess()
    expect(trust).toMatchObject({ trusted: true, reason: "not-needed", contributions: [], leftOut: [] })
    expect(trust.howToTrust).toBe(`toolbelt trust ${project}`)
  })

  it("needs no trust step for keys nothing reads (typos): they do nothing, and are reported as unknown instead", async () => {
    await put(
      "toolbelt.json",
      JSON.stringify({ tool_serch: "off", premission: { bash: "allow" }, experimental: { batch_tol: true } }),
    )
    expect(await assess()).toMatchObject({ trusted: true, reason: "not-needed", contributions: [] })
    // A known key beside them still counts, and only it.
    await put("toolbelt.json", JSON.stringify({ tool_serch: "off", experimental: { batch_tool: true } }))
    const trust = await assess()
    expect(trust).toMatchObject({ trusted: false, reason: "untrusted" })
    expect(trust.contributions.map((each) => each.detail)).toEqual([
      'config key "experimental" can run code, contact a host or loosen the policy',
    ])
  })

  it("finds every kind of contribution, each with its file", async () => {
    const config = await put(
      "toolbelt.json",
      JSON.stringify({
        plugin: ["./plugin.js", "some-package"],
        mcp: {
          ask: "allow",
          db: { type: "local", command: ["node", "server.js"] },
          web: { url: "http://x" },
        },
        lsp: { typescript: false, mine: { command: ["mine-ls"], extensions: [".mine"] } },
        shell: "/bin/zsh",
        webfetch: {},
        file: { require_read: false },
        permission: { bash: { "rm *": "allow" } },
        agent: { build: { permission: { edit: "allow" }, tools: { bash: true } } },
      }),
    )
    const dotConfig = await put(".toolbelt/toolbelt.jsonc", '{ "batch": true, // on\n}')
    const agentFile = await put(".opencode/agent/build.md", "---\npermission:\n  bash: allow\n---\nBuild.\n")
    const tool = await put(".opencode/tools/hello.ts", "export default {}\n")
    await put(".opencode/tools/lib/helper.ts", "export const x = 1\n")
    const trust = await assess()
    expect(trust).toMatchObject({ trusted: false, reason: "untrusted" })
    expect(trust.leftOut).toEqual(trust.contributions)
    const details = trust.contributions.map(({ kind, file, detail }) => [kind, file, detail])
    expect(details).toEqual(
      expect.arrayContaining([
        ["plugin", config, 'plugin "./plugin.js" runs its code'],
        ["plugin", config, 'plugin "some-package" runs its code'],
        ["config-key", config, expect.stringContaining("mcp.ask")],
        ["mcp-server", config, 'MCP server "db" runs `node server.js`'],
        ["mcp-server", config, 'MCP server "web" contacts http://x'],
        ["lsp", config, 'language server "mine" runs `mine-ls`'],
        ["config-key", config, expect.stringContaining('"shell"')],
        ["config-key", config, expect.stringContaining('"webfetch"')],
        ["config-key", config, expect.stringContaining('"file"')],
        ["permission", config, 'permission.bash["rm *"] allows'],
        ["permission", config, "agent.build.permission.edit allows"],
        ["permission", config, "agent.build.tools.bash turns it on"],
        ["config-key", dotConfig, expect.stringContaining('"batch"')],
        ["agent-file", agentFile, "agent file .opencode/agent/build.md: permission.bash allows"],
        ["tool-file", tool, "tool file .opencode/tools/hello.ts runs its code"],
      ]),
    )
    // `lsp.typescript: false` turns a server off: nothing runs.
    expect(details.filter(([kind]) => kind === "lsp")).toHaveLength(1)
    expect(details).toHaveLength(15)
  })

  it("finds tool files in parent folders up to the repository root, and linked ones", async () => {
    const sub = join(project, "packages", "a")
    await mkdir(sub, { recursive: true })
    const up = await put(".toolbelt/tool/up.mjs", "export default {}\n")
    await symlink(up, join(dirname(up), "linked.js"))
    const trust = await assessProjectTrust({ directory: sub, worktree: project, env })
    expect(trust.contributions.map(({ file }) => file).sort()).toEqual([join(dirname(up), "linked.js"), up])
  })

  it("counts opencode.json's allows only when opencode's rules are applied", async () => {
    await put("opencode.json", JSON.stringify({ permission: { edit: "allow" } }))
    expect((await assess()).reason).toBe("not-needed")
    await mkdir(join(home, ".config", "toolbelt"), { recursive: true })
    await writeFile(
      join(home, ".config", "toolbelt", "toolbelt.json"),
      '{"permission_sources": ["opencode"]}',
    )
    expect((await assess()).contributions.map(({ detail }) => detail)).toEqual(["permission.edit allows"])
  })

  it("is trusted by the store while the fingerprint holds, and says changed when a tool file changes", async () => {
    const tool = await put(".toolbelt/tools/hello.ts", "export default {}\n")
    const before = await assess()
    new TrustStore({ env }).trust(project, before.fingerprint)
    expect(await assess()).toMatchObject({ trusted: true, reason: "store", leftOut: [] })
    await writeFile(tool, "export default { changed: true }\n")
    const after = await assess()
    expect(after).toMatchObject({ trusted: false, reason: "changed" })
    expect(after.fingerprint).not.toBe(before.fingerprint)
    expect(after.leftOut).toHaveLength(1)
  })

  it("changes the fingerprint when a helper beside the tool files changes", async () => {
    await put(".toolbelt/tools/hello.ts", "export default {}\n")
    const before = (await assess()).fingerprint
    await put(".toolbelt/tools/lib/helper.ts", "export const x = 2\n")
    expect((await assess()).fingerprint).not.toBe(before)
  })

  it("is trusted for one run by the option or TOOLBELT_TRUST=1", async () => {
    await put(".toolbelt/tools/hello.ts", "export default {}\n")
    expect(await assess({ trust: true })).toMatchObject({ trusted: true, reason: "option", leftOut: [] })
    expect(await assess({ env: { ...env, TOOLBELT_TRUST: "1" } })).toMatchObject({
      trusted: true,
      reason: "env",
    })
    expect(await assess({ env: { ...env, TOOLBELT_TRUST: "yes" } })).toMatchObject({ trusted: false })
  })

  it("trusts nothing when the store is corrupt, and says why", async () => {
    await put(".toolbelt/tools/hello.ts", "export default {}\n")
    const store = new TrustStore({ env })
    store.trust(project, (await assess()).fingerprint)
    await writeFile(store.file, "{ not json")
    const trust = await assess()
    expect(trust).toMatchObject({ trusted: false, reason: "untrusted" })
    expect(trust.problem).toContain(store.file)
    expect(() => store.trust(project, "x")).toThrow(/Delete the file/)
  })
})

describe("configFor", () => {
  it("keeps only the keys that cannot run, contact or loosen when untrusted", async () => {
    await mkdir(join(home, ".config", "toolbelt"), { recursive: true })
    await writeFile(
      join(home, ".config", "toolbelt", "toolbelt.json"),
      JSON.stringify({ shell: "/bin/bash", plugin: ["/home/mine.js"], tool_output: { max_lines: 5 } }),
    )
    await put(
      "toolbelt.json",
      JSON.stringify({
        shell: "/bin/evil",
        plugin: ["./evil.js"],
        mcp: { db: { command: ["x"] } },
        tool_output: { max_lines: 3 },
        permission: { bash: "deny" },
      }),
    )
    const layers = await loadConfigLayers(project, env)
    expect(configFor(layers, { trusted: false })).toEqual({
      shell: "/bin/bash",
      plugin: ["/home/mine.js"],
      tool_output: { max_lines: 3 },
      permission: { bash: "deny" },
    })
    expect(configFor(layers, { trusted: true })).toEqual({
      shell: "/bin/evil",
      plugin: ["/home/mine.js", join(project, "evil.js")],
      mcp: { db: { command: ["x"] } },
      tool_output: { max_lines: 3 },
      permission: { bash: "deny" },
    })
  })
})
