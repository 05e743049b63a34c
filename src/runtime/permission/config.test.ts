import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { ConfigError } from "../config/config.ts"
import { expandHome, fromConfig, loadPermissionRules, normalize } from "./config.ts"
import { evaluate } from "./ruleset.ts"

const home = "/home/me"

describe("fromConfig", () => {
  it("shorthand action: everything", () => {
    expect(fromConfig("allow", { home })).toEqual([{ permission: "*", pattern: "*", action: "allow" }])
    expect(fromConfig("deny", { home })).toEqual([{ permission: "*", pattern: "*", action: "deny" }])
  })

  it("nothing configured: no rules", () => {
    expect(fromConfig(undefined, { home })).toEqual([])
    expect(fromConfig(null, { home })).toEqual([])
    expect(fromConfig({}, { home })).toEqual([])
  })

  it("a key with an action", () => {
    expect(fromConfig({ bash: "allow" }, { home })).toEqual([
      { permission: "bash", pattern: "*", action: "allow" },
    ])
  })

  it("a key with a pattern map", () => {
    expect(fromConfig({ bash: { "*": "allow", rm: "deny" } }, { home })).toEqual([
      { permission: "bash", pattern: "*", action: "allow" },
      { permission: "bash", pattern: "rm", action: "deny" },
    ])
  })

  it("several keys, mixed forms", () => {
    expect(fromConfig({ edit: "deny", bash: { "git *": "allow" }, webfetch: "ask" }, { home })).toEqual([
      { permission: "edit", pattern: "*", action: "deny" },
      { permission: "bash", pattern: "git *", action: "allow" },
      { permission: "webfetch", pattern: "*", action: "ask" },
    ])
  })

  it("keeps key order, which decides precedence", () => {
    const denyFirst = fromConfig({ bash: "deny", "*": "allow" }, { home })
    const allowFirst = fromConfig({ "*": "allow", bash: "deny" }, { home })
    expect(denyFirst.map((r) => r.permission)).toEqual(["bash", "*"])
    expect(evaluate("bash", "ls", denyFirst).action).toBe("allow")
    expect(evaluate("bash", "ls", allowFirst).action).toBe("deny")
  })

  it("keeps pattern order inside a key", () => {
    const rules = fromConfig({ bash: { "rm *": "deny", "*": "allow", "git push *": "ask" } }, { home })
    expect(rules.map((r) => r.pattern)).toEqual(["rm *", "*", "git push *"])
    expect(evaluate("bash", "rm x", rules).action).toBe("allow")
    expect(evaluate("bash", "git push origin", rules).action).toBe("ask")
  })

  it("wildcard permission keys", () => {
    const rules = fromConfig({ "mcp_*": "deny" }, { home })
    expect(evaluate("mcp_github_issue", "*", rules).action).toBe("deny")
  })

  it("expands ~/ at the start of a pattern", () => {
    expect(fromConfig({ read: { "~/secrets/*": "deny" } }, { home })[0]!.pattern).toBe("/home/me/secrets/*")
  })

  it("expands a bare ~", () => {
    expect(fromConfig({ external_directory: { "~": "allow" } }, { home })[0]!.pattern).toBe("/home/me")
  })

  it("expands $HOME and $HOME/", () => {
    const rules = fromConfig({ external_directory: { $HOME: "ask", "$HOME/projects/*": "allow" } }, { home })
    expect(rules.map((r) => r.pattern)).toEqual(["/home/me", "/home/me/projects/*"])
  })

  it("expands only at the start", () => {
    const rules = fromConfig(
      { read: { "/some/~/path": "deny", "x$HOME/y": "deny", "~user/x": "deny" } },
      { home },
    )
    expect(rules.map((r) => r.pattern)).toEqual(["/some/~/path", "x$HOME/y", "~user/x"])
  })

  it("rejects an invalid action, naming the key", () => {
    expect(() => fromConfig({ bash: "yes" }, { home })).toThrow(ConfigError)
    expect(() => fromConfig({ bash: "yes" }, { home })).toThrow(
      /permission\.bash: expected "allow", "ask" or "deny", got "yes"/,
    )
    expect(() => fromConfig({ bash: { "rm *": "nope" } }, { home })).toThrow(/permission\.bash\["rm \*"\]/)
    expect(() => fromConfig("maybe", { home })).toThrow(
      /Invalid permission: expected "allow", "ask" or "deny"/,
    )
  })

  it("rejects values of the wrong shape", () => {
    expect(() => fromConfig(42, { home })).toThrow(/Invalid permission/)
    expect(() => fromConfig(["allow"], { home })).toThrow(/got a list/)
    expect(() => fromConfig({ bash: true }, { home })).toThrow(/permission\.bash: .*got boolean/)
    expect(() => fromConfig({ bash: null }, { home })).toThrow(/permission\.bash: .*got null/)
  })

  it("does not resolve a home with a trailing slash into a double slash", () => {
    expect(expandHome("~/x", "/")).toBe("/x")
    expect(expandHome("$HOME/x", "/home/me/")).toBe("/home/me/x")
  })

  it("normalize puts every form in the long form", () => {
    expect(normalize("ask")).toEqual({ "*": { "*": "ask" } })
    expect(normalize({ bash: "allow", edit: { "src/*": "deny" } })).toEqual({
      bash: { "*": "allow" },
      edit: { "src/*": "deny" },
    })
  })
})

describe("loadPermissionRules", () => {
  let root: string
  let project: string
  let env: NodeJS.ProcessEnv

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "toolbelt-permission-config-"))
    project = join(root, "project")
    await mkdir(join(project, ".toolbelt"), { recursive: true })
    await mkdir(join(root, "xdg", "toolbelt"), { recursive: true })
    await mkdir(join(root, "extra"), { recursive: true })
    env = { HOME: join(root, "home"), XDG_CONFIG_HOME: join(root, "xdg") }
  })

  afterEach(async () => {
    await rm(root, { recursive: true, force: true })
  })

  const write = (file: string, value: unknown) =>
    writeFile(file, typeof value === "string" ? value : JSON.stringify(value))

  it("no config: no rules", async () => {
    expect(await loadPermissionRules(project, env)).toEqual({
      rules: [],
      agents: {},
      definitions: {},
      files: [],
      sources: [],
      imports: [],
    })
  })

  it("with opencode opted in, reads every source in order of precedence; the last matching rule wins", async () => {
    await write(join(root, "xdg", "toolbelt", "opencode.json"), { permission: { bash: "deny" } })
    await write(join(root, "xdg", "toolbelt", "toolbelt.json"), {
      permission: { webfetch: "deny" },
      permission_sources: ["opencode"],
    })
    await write(join(root, "extra", "toolbelt.json"), { permission: { webfetch: "ask" } })
    await write(join(project, "opencode.json"), { permission: { bash: { "git *": "allow" } }, model: "x" })
    await write(
      join(project, "toolbelt.jsonc"),
      `{
        // comments and trailing commas are fine
        "permission": { "edit": { "*": "ask", }, },
      }`,
    )
    await write(join(project, ".toolbelt", "toolbelt.json"), { permission: { edit: { "src/*": "allow" } } })
    const loaded = await loadPermissionRules(project, { ...env, TOOLBELT_CONFIG_DIR: join(root, "extra") })
    expect(loaded.files).toEqual([
      join(root, "xdg", "toolbelt", "opencode.json"),
      join(root, "xdg", "toolbelt", "toolbelt.json"),
      join(root, "extra", "toolbelt.json"),
      join(project, "opencode.json"),
      join(project, "toolbelt.jsonc"),
      join(project, ".toolbelt", "toolbelt.json"),
    ])
    expect(loaded.imports).toEqual(["opencode"])
    expect(loaded.rules.map(({ source: _, ...rule }) => rule)).toEqual([
      { permission: "bash", pattern: "*", action: "deny" },
      { permission: "bash", pattern: "git *", action: "allow" },
      { permission: "webfetch", pattern: "*", action: "ask" },
      { permission: "edit", pattern: "*", action: "ask" },
      { permission: "edit", pattern: "src/*", action: "allow" },
    ])
    // Each rule says where it was written: the last file that set it.
    expect(loaded.rules.map((rule) => rule.source)).toEqual([
      { origin: join(root, "xdg", "toolbelt", "opencode.json"), key: "permission.bash" },
      { origin: join(project, "opencode.json"), key: 'permission.bash["git *"]' },
      { origin: join(root, "extra", "toolbelt.json"), key: "permission.webfetch" },
      { origin: join(project, "toolbelt.jsonc"), key: 'permission.edit["*"]' },
      { origin: join(project, ".toolbelt", "toolbelt.json"), key: 'permission.edit["src/*"]' },
    ])
    expect(evaluate("bash", "git status", loaded.rules).action).toBe("allow")
    expect(evaluate("bash", "rm x", loaded.rules).action).toBe("deny")
    expect(evaluate("edit", "src/a.ts", loaded.rules).action).toBe("allow")
  })

  it("a shorthand in one file and keys in another both count", async () => {
    await write(join(root, "xdg", "toolbelt", "toolbelt.json"), { permission: "ask" })
    await write(join(project, "toolbelt.json"), { permission: { bash: "allow" } })
    const { rules } = await loadPermissionRules(project, env)
    expect(rules).toMatchObject([
      { permission: "*", pattern: "*", action: "ask" },
      { permission: "bash", pattern: "*", action: "allow" },
    ])
  })

  it("a later file overrides a key in place (first-seen order kept)", async () => {
    await write(join(root, "xdg", "toolbelt", "toolbelt.json"), { permission: { "*": "allow", bash: "ask" } })
    await write(join(project, "toolbelt.json"), { permission: { "*": "deny" } })
    const { rules } = await loadPermissionRules(project, env)
    expect(rules.map((r) => `${r.permission} ${r.action}`)).toEqual(["* deny", "bash ask"])
  })

  it("TOOLBELT_PERMISSION is merged on top", async () => {
    await write(join(project, "toolbelt.json"), { permission: { bash: { "*": "ask" } } })
    const { rules } = await loadPermissionRules(project, {
      ...env,
      TOOLBELT_PERMISSION: JSON.stringify({ bash: { "*": "allow", "rm *": "deny" }, edit: "deny" }),
    })
    expect(rules).toMatchObject([
      { permission: "bash", pattern: "*", action: "allow" },
      { permission: "bash", pattern: "rm *", action: "deny" },
      { permission: "edit", pattern: "*", action: "deny" },
    ])
  })

  it("TOOLBELT_PERMISSION must be JSON", async () => {
    await expect(loadPermissionRules(project, { ...env, TOOLBELT_PERMISSION: "{nope" })).rejects.toThrow(
      /Invalid TOOLBELT_PERMISSION: not JSON/,
    )
  })

  it("returns agent.<name>.permission merged across files", async () => {
    await write(join(root, "xdg", "toolbelt", "toolbelt.json"), {
      agent: { plan: { permission: { bash: "deny" } }, review: { permission: "ask" } },
    })
    await write(join(project, "opencode.json"), {
      agent: { plan: { permission: { bash: { "git *": "allow" } } } },
    })
    await write(join(project, "toolbelt.json"), { permission_sources: ["opencode"] })
    const { agents } = await loadPermissionRules(project, env)
    expect(agents.plan).toEqual([
      {
        permission: "bash",
        pattern: "*",
        action: "deny",
        source: { origin: join(root, "xdg", "toolbelt", "toolbelt.json"), key: "agent.plan.permission.bash" },
      },
      {
        permission: "bash",
        pattern: "git *",
        action: "allow",
        source: { origin: join(project, "opencode.json"), key: 'agent.plan.permission.bash["git *"]' },
      },
    ])
    expect(agents.review).toMatchObject([{ permission: "*", pattern: "*", action: "ask" }])
  })

  it("opencode.json is found but not applied unless toolbelt.json opts in", async () => {
    const opencode = join(project, "opencode.json")
    // Written for opencode's built-ins: applied to toolbelt's tools it would open reads outside the project.
    await write(opencode, {
      permission: { "*": "allow", read: "deny" },
      agent: { build: { permission: "deny" } },
    })
    await write(join(project, "toolbelt.json"), { permission: { bash: "ask" } })
    const loaded = await loadPermissionRules(project, env)
    expect(loaded.rules).toMatchObject([{ permission: "bash", pattern: "*", action: "ask" }])
    expect(loaded.agents).toEqual({})
    expect(loaded.files).toEqual([join(project, "toolbelt.json")])
    expect(loaded.sources).toEqual([
      {
        file: opencode,
        kind: "opencode",
        used: false,
        note: expect.stringContaining('"permission_sources": ["opencode"]'),
      },
      { file: join(project, "toolbelt.json"), kind: "toolbelt", used: true },
    ])
  })

  it("an opencode.json that is not opted in is not even parsed", async () => {
    await write(join(project, "opencode.json"), "{ not json")
    const loaded = await loadPermissionRules(project, env)
    expect(loaded.sources).toMatchObject([{ kind: "opencode", used: false }])
  })

  it("the last toolbelt.json that sets permission_sources decides it", async () => {
    await write(join(project, "opencode.json"), { permission: { bash: "deny" } })
    await write(join(root, "xdg", "toolbelt", "toolbelt.json"), { permission_sources: ["opencode"] })
    await write(join(project, "toolbelt.json"), { permission_sources: [] })
    const loaded = await loadPermissionRules(project, env)
    expect(loaded.rules).toEqual([])
    expect(loaded.imports).toEqual([])
  })

  it("permission_sources accepts only the agents it knows, and says which", async () => {
    const file = join(project, "toolbelt.json")
    await write(file, { permission_sources: ["claude"] })
    await expect(loadPermissionRules(project, env)).rejects.toThrow(
      `Invalid permission_sources in ${file}: expected a list of "opencode"`,
    )
  })

  it("TOOLBELT_PERMISSION is listed as a source and named on its rules", async () => {
    const loaded = await loadPermissionRules(project, {
      ...env,
      TOOLBELT_PERMISSION: '{"bash":{"rm *":"deny"}}',
    })
    expect(loaded.sources).toEqual([{ file: "TOOLBELT_PERMISSION", kind: "env", used: true }])
    expect(loaded.rules[0]!.source).toEqual({
      origin: "TOOLBELT_PERMISSION",
      key: 'TOOLBELT_PERMISSION.bash["rm *"]',
    })
  })

  it("expands ~ with the environment's HOME", async () => {
    await write(join(project, "toolbelt.json"), {
      permission: { external_directory: { "~/work/*": "allow" } },
    })
    const { rules } = await loadPermissionRules(project, env)
    expect(rules[0]!.pattern).toBe(join(root, "home", "work", "*"))
  })

  it("an invalid action names the file and the key", async () => {
    const file = join(project, "toolbelt.json")
    await write(file, { permission: { bash: { "rm *": "never" } } })
    await expect(loadPermissionRules(project, env)).rejects.toThrow(
      `Invalid permission.bash["rm *"] in ${file}: expected "allow", "ask" or "deny", got "never".`,
    )
  })
})
