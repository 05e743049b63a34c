// opencode's `.opencode/config.toml` (the spec's step 2 of adding a custom tool) and the source rule for
// another agent's config: what tightens (deny, ask) applies by default, what loosens (allow) only with
// `"permission_sources": ["opencode"]`. Real files in a temp dir, the real policy and decision.
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { permissionFiles } from "../../src/runtime/config/other-agents.ts"
import { loadPolicy, type Policy } from "../../src/runtime/permission/agents/policy.ts"
import { loadPermissionRules } from "../../src/runtime/permission/config.ts"
import { decide } from "../../src/runtime/permission/decision.ts"
import { policyRootEach, put } from "../../src/runtime/permission/fixtures/policy-root.ts"
import { SPEC_TOML } from "../custom/fixtures/spec-tool.ts"

let root: string
let project: string
let env: NodeJS.ProcessEnv
policyRootEach("toolbelt-config-toml-", (made) => ({ root, project, env } = made))

const load = (trusted = true) => loadPolicy({ directory: project, dataDir: join(root, "data"), env, trusted })
const decision = (policy: Policy, permission: string, pattern: string, agent = "build") =>
  decide(permission, pattern, policy.rulesOf(agent), policy.constraintsOf(agent)).action
const userToolbelt = () => join(root, "home", ".config", "toolbelt", "toolbelt.json")
const optIn = () => put(userToolbelt(), JSON.stringify({ permission_sources: ["opencode"] }))

describe(".opencode/config.toml", () => {
  it("the spec's text parses and applies: the custom tool asks, with nothing else configured", async () => {
    const toml = await put(join(project, ".opencode", "config.toml"), SPEC_TOML)
    for (const trusted of [true, false]) {
      const policy = await load(trusted)
      expect(decision(policy, "my_custom_tool", "test")).toBe("ask")
      // Nothing else changes: the build agent's defaults still allow the rest.
      expect(decision(policy, "other_tool", "test")).toBe("allow")
      expect(policy.sources).toEqual([
        expect.objectContaining({ file: toml, kind: "opencode", layer: "project", use: "tighten-only" }),
      ])
    }
  })

  it("its deny applies by default; its allow only with permission_sources", async () => {
    await put(
      join(project, ".opencode", "config.toml"),
      `[permission.bash]
"*" = "ask"
"rm *" = "deny"
"git status" = "allow"

[permission.external_directory]
"/srv/shared/*" = "allow"
`,
    )
    const before = await load()
    expect(decision(before, "bash", "rm -rf build")).toBe("deny")
    expect(decision(before, "bash", "make")).toBe("ask")
    // The allow opens nothing: outside the project still asks.
    expect(decision(before, "external_directory", "/srv/shared/a.txt")).toBe("ask")
    expect(before.setAside.map(({ rule, how }) => `${how} ${rule.permission} ${rule.pattern}`)).toEqual([
      "tighten-only bash *",
      "tighten-only bash rm *",
      "left-out bash git status",
      "left-out external_directory /srv/shared/*",
    ])

    await optIn()
    const after = await load()
    expect(after.imports).toEqual(["opencode"])
    expect(decision(after, "external_directory", "/srv/shared/a.txt")).toBe("allow")
    expect(decision(after, "bash", "git status")).toBe("allow")
    expect(decision(after, "bash", "rm -rf build")).toBe("deny")
    expect(after.setAside).toEqual([])
  })

  it("an untrusted project's config.toml allows nothing even when the user opted in; its denies hold", async () => {
    await put(
      join(project, ".opencode", "config.toml"),
      '[permission]\nwebfetch = "deny"\n\n[permission.external_directory]\n"/srv/*" = "allow"\n',
    )
    await optIn()
    const untrusted = await load(false)
    expect(decision(untrusted, "webfetch", "https://example.com")).toBe("deny")
    expect(decision(untrusted, "external_directory", "/srv/a")).toBe("ask")
    const trusted = await load(true)
    expect(decision(trusted, "external_directory", "/srv/a")).toBe("allow")
  })

  it("sits after opencode.json in the project's layer: a key it sets again takes its action", async () => {
    await put(join(project, "opencode.json"), JSON.stringify({ permission: { edit: "deny", bash: "ask" } }))
    await put(join(project, ".opencode", "config.toml"), '[permission]\nedit = "ask"\n')
    await put(join(project, "toolbelt.json"), JSON.stringify({ permission_sources: ["opencode"] }))
    const rules = await loadPermissionRules(project, env, { trusted: true })
    expect(
      rules.project.rules.map((rule) => `${rule.permission} ${rule.action} ${rule.source?.origin}`),
    ).toEqual([
      `edit ask ${join(project, ".opencode", "config.toml")}`,
      `bash ask ${join(project, "opencode.json")}`,
    ])
    expect(rules.files).toEqual([
      join(project, "opencode.json"),
      join(project, ".opencode", "config.toml"),
      join(project, "toolbelt.json"),
    ])
  })

  it("its agents' rules count like opencode.json's: an agent's deny holds for that agent", async () => {
    await put(join(project, ".opencode", "config.toml"), '[agent.plan.permission]\nwebfetch = "deny"\n')
    const policy = await load()
    expect(decision(policy, "webfetch", "https://example.com", "plan")).toBe("deny")
    expect(decision(policy, "webfetch", "https://example.com", "build")).toBe("allow")
  })

  it("one that does not parse is listed as not used, with file:line:column; opted in, it is an error", async () => {
    const toml = await put(join(project, ".opencode", "config.toml"), "[permission]\nbash = deny\n")
    const policy = await load()
    expect(policy.sources).toEqual([
      {
        file: toml,
        kind: "opencode",
        layer: "project",
        use: "unused",
        note: expect.stringMatching(
          new RegExp(
            `^Invalid config file ${toml}:2:8: .*Fix the TOML there.*its denies and asks included\\.$`,
          ),
        ),
      },
    ])
    await optIn()
    await expect(load()).rejects.toThrow(`Invalid config file ${toml}:2:8: `)
  })

  it("the user's own opencode config (~/.config/opencode/) tightens too, below every toolbelt file", async () => {
    const dir = join(root, "home", ".config", "opencode")
    await put(
      join(dir, "opencode.json"),
      JSON.stringify({ permission: { bash: { "rm *": "deny" } }, theme: "x" }),
    )
    await put(join(dir, "config.toml"), '[permission]\nwebfetch = "ask"\n')
    const policy = await load()
    expect(decision(policy, "bash", "rm -rf /")).toBe("deny")
    expect(decision(policy, "webfetch", "https://example.com")).toBe("ask")
    expect(policy.sources).toEqual([
      expect.objectContaining({
        file: join(dir, "opencode.json"),
        layer: "user",
        use: "tighten-only",
        unread: ["theme"],
      }),
      expect.objectContaining({ file: join(dir, "config.toml"), layer: "user", use: "tighten-only" }),
    ])
  })
})

describe("permissionFiles", () => {
  it("lists every place in order of precedence, each file once", () => {
    const dirs = [join(root, "home", ".config", "toolbelt"), project, join(project, ".toolbelt")]
    const files = permissionFiles(project, dirs, env).map(({ file, kind, layer }) => [
      file.slice(root.length + 1),
      kind,
      layer,
    ])
    expect(files).toEqual([
      ["home/.config/opencode/opencode.json", "opencode", "user"],
      ["home/.config/opencode/opencode.jsonc", "opencode", "user"],
      ["home/.config/opencode/config.toml", "opencode", "user"],
      ["home/.config/toolbelt/opencode.json", "opencode", "user"],
      ["home/.config/toolbelt/opencode.jsonc", "opencode", "user"],
      ["home/.config/toolbelt/toolbelt.json", "toolbelt", "user"],
      ["home/.config/toolbelt/toolbelt.jsonc", "toolbelt", "user"],
      ["project/opencode.json", "opencode", "project"],
      ["project/opencode.jsonc", "opencode", "project"],
      ["project/.opencode/config.toml", "opencode", "project"],
      ["project/toolbelt.json", "toolbelt", "project"],
      ["project/toolbelt.jsonc", "toolbelt", "project"],
      ["project/.toolbelt/toolbelt.json", "toolbelt", "project"],
      ["project/.toolbelt/toolbelt.jsonc", "toolbelt", "project"],
    ])
  })
})
