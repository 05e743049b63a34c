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
  const load = (over: NodeJS.ProcessEnv = {}, trusted = true) =>
    loadPermissionRules(project, { ...env, ...over }, { trusted })
  const bare = (rules: readonly { source?: unknown }[]) => rules.map(({ source: _, ...rule }) => rule)

  it("no config: no rules", async () => {
    expect(await load()).toEqual({
      user: { rules: [], agents: {} },
      project: { rules: [], agents: {} },
      env: [],
      others: [],
      definitions: {},
      files: [],
      sources: [],
      imports: [],
    })
  })

  it("with opencode opted in, reads every source in order of precedence, each into its layer", async () => {
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
    const loaded = await load({ TOOLBELT_CONFIG_DIR: join(root, "extra") })
    expect(loaded.files).toEqual([
      join(root, "xdg", "toolbelt", "opencode.json"),
      join(root, "xdg", "toolbelt", "toolbelt.json"),
      join(root, "extra", "toolbelt.json"),
      join(project, "opencode.json"),
      join(project, "toolbelt.jsonc"),
      join(project, ".toolbelt", "toolbelt.json"),
    ])
    expect(loaded.imports).toEqual(["opencode"])
    expect(bare(loaded.user.rules)).toEqual([
      { permission: "bash", pattern: "*", action: "deny" },
      { permission: "webfetch", pattern: "*", action: "ask" },
    ])
    expect(bare(loaded.project.rules)).toEqual([
      { permission: "bash", pattern: "git *", action: "allow" },
      { permission: "edit", pattern: "*", action: "ask" },
      { permission: "edit", pattern: "src/*", action: "allow" },
    ])
    // Each rule says where it was written: the last file of its layer that set it.
    expect(loaded.user.rules.map((rule) => rule.source)).toEqual([
      { origin: join(root, "xdg", "toolbelt", "opencode.json"), key: "permission.bash" },
      { origin: join(root, "extra", "toolbelt.json"), key: "permission.webfetch" },
    ])
    expect(loaded.project.rules.map((rule) => rule.source)).toEqual([
      { origin: join(project, "opencode.json"), key: 'permission.bash["git *"]' },
      { origin: join(project, "toolbelt.jsonc"), key: 'permission.edit["*"]' },
      { origin: join(project, ".toolbelt", "toolbelt.json"), key: 'permission.edit["src/*"]' },
    ])
    expect(loaded.sources.map((source) => `${source.layer} ${source.use}`)).toEqual([
      "user applied",
      "user applied",
      "user applied",
      "project applied",
      "project applied",
      "project applied",
    ])
  })

  it("a shorthand in one file and keys in another of the same layer both count", async () => {
    await write(join(project, "toolbelt.json"), { permission: "ask" })
    await write(join(project, ".toolbelt", "toolbelt.json"), { permission: { bash: "allow" } })
    const { project: layer } = await load()
    expect(layer.rules).toMatchObject([
      { permission: "*", pattern: "*", action: "ask" },
      { permission: "bash", pattern: "*", action: "allow" },
    ])
  })

  it("a later file of a layer overrides a key in place (first-seen order kept); layers never merge", async () => {
    await write(join(root, "xdg", "toolbelt", "toolbelt.json"), { permission: { "*": "allow", bash: "ask" } })
    await write(join(root, "extra", "toolbelt.json"), { permission: { "*": "deny" } })
    await write(join(project, "toolbelt.json"), { permission: { bash: "allow" } })
    const loaded = await load({ TOOLBELT_CONFIG_DIR: join(root, "extra") })
    expect(loaded.user.rules.map((r) => `${r.permission} ${r.action}`)).toEqual(["* deny", "bash ask"])
    expect(loaded.project.rules.map((r) => `${r.permission} ${r.action}`)).toEqual(["bash allow"])
  })

  it("TOOLBELT_PERMISSION is a layer of its own, on top", async () => {
    await write(join(root, "xdg", "toolbelt", "toolbelt.json"), { permission: { bash: { "*": "ask" } } })
    const loaded = await load({
      TOOLBELT_PERMISSION: JSON.stringify({ bash: { "*": "allow", "rm *": "deny" }, edit: "deny" }),
    })
    expect(loaded.user.rules).toMatchObject([{ permission: "bash", pattern: "*", action: "ask" }])
    expect(loaded.env).toMatchObject([
      { permission: "bash", pattern: "*", action: "allow" },
      { permission: "bash", pattern: "rm *", action: "deny" },
      { permission: "edit", pattern: "*", action: "deny" },
    ])
  })

  it("TOOLBELT_PERMISSION must be JSON", async () => {
    await expect(load({ TOOLBELT_PERMISSION: "{nope" })).rejects.toThrow(
      /Invalid TOOLBELT_PERMISSION: not JSON/,
    )
  })

  it("returns agent.<name>.permission merged across the files of each layer", async () => {
    await write(join(root, "xdg", "toolbelt", "toolbelt.json"), {
      agent: { plan: { permission: { bash: "deny" } }, review: { permission: "ask" } },
    })
    await write(join(project, "opencode.json"), {
      agent: { plan: { permission: { bash: { "git *": "allow" } } } },
    })
    await write(join(project, "toolbelt.json"), {
      permission_sources: ["opencode"],
      agent: { plan: { permission: { edit: "ask" } } },
    })
    const { user, project: layer } = await load()
    expect(user.agents.plan).toEqual([
      {
        permission: "bash",
        pattern: "*",
        action: "deny",
        source: { origin: join(root, "xdg", "toolbelt", "toolbelt.json"), key: "agent.plan.permission.bash" },
      },
    ])
    expect(user.agents.review).toMatchObject([{ permission: "*", pattern: "*", action: "ask" }])
    expect(bare(layer.agents.plan!)).toEqual([
      { permission: "bash", pattern: "git *", action: "allow" },
      { permission: "edit", pattern: "*", action: "ask" },
    ])
  })

  it("opencode.json not opted in is a constraint of its own, listed as tighten-only", async () => {
    const opencode = join(project, "opencode.json")
    await write(opencode, {
      permission: { "*": "allow", read: "deny" },
      agent: { build: { permission: "deny" } },
    })
    await write(join(project, "toolbelt.json"), { permission: { bash: "ask" } })
    const loaded = await load()
    expect(loaded.project.rules).toMatchObject([{ permission: "bash", pattern: "*", action: "ask" }])
    expect(loaded.project.agents).toEqual({})
    expect(loaded.others).toHaveLength(1)
    expect(bare(loaded.others[0]!.rules)).toEqual([
      { permission: "*", pattern: "*", action: "allow" },
      { permission: "read", pattern: "*", action: "deny" },
    ])
    expect(bare(loaded.others[0]!.agents.build!)).toEqual([{ permission: "*", pattern: "*", action: "deny" }])
    expect(loaded.files).toEqual([join(project, "toolbelt.json")])
    expect(loaded.sources).toEqual([
      {
        file: opencode,
        kind: "opencode",
        layer: "project",
        use: "tighten-only",
        note: expect.stringContaining('"permission_sources": ["opencode"]'),
      },
      { file: join(project, "toolbelt.json"), kind: "toolbelt", layer: "project", use: "applied" },
    ])
  })

  it("an opencode.json that cannot be parsed is listed as not used; toolbelt's own policy stands", async () => {
    await write(join(project, "opencode.json"), "{ not json")
    const loaded = await load()
    expect(loaded.sources).toMatchObject([{ kind: "opencode", use: "unused" }])
    expect(loaded.others).toEqual([])
  })

  it("the last toolbelt.json that sets permission_sources decides it", async () => {
    await write(join(project, "opencode.json"), { permission: { bash: "deny" } })
    await write(join(root, "xdg", "toolbelt", "toolbelt.json"), { permission_sources: ["opencode"] })
    await write(join(project, "toolbelt.json"), { permission_sources: [] })
    const loaded = await load()
    expect(loaded.project.rules).toEqual([])
    expect(loaded.imports).toEqual([])
  })

  it("an untrusted project's permission_sources is not honoured, and its files only tighten", async () => {
    await write(join(project, "opencode.json"), { permission: { bash: "allow" } })
    const file = join(project, "toolbelt.json")
    await write(file, { permission_sources: ["opencode"], permission: { edit: "allow" } })
    const untrusted = await load({}, false)
    expect(untrusted.imports).toEqual([])
    expect(untrusted.files).toEqual([])
    expect(untrusted.sources).toEqual([
      expect.objectContaining({ kind: "opencode", use: "tighten-only" }),
      expect.objectContaining({
        file,
        use: "tighten-only",
        note: expect.stringContaining(`toolbelt trust ${project}`),
      }),
    ])
    // The user may name it: the project's opencode.json then joins the project's layer.
    await write(join(root, "xdg", "toolbelt", "toolbelt.json"), { permission_sources: ["opencode"] })
    const named = await load({}, false)
    expect(named.imports).toEqual(["opencode"])
    expect(named.others).toEqual([])
    expect(bare(named.project.rules)).toEqual([
      { permission: "bash", pattern: "*", action: "allow" },
      { permission: "edit", pattern: "*", action: "allow" },
    ])
  })

  it("permission_sources accepts only the agents it knows, and says which", async () => {
    const file = join(project, "toolbelt.json")
    await write(file, { permission_sources: ["claude"] })
    await expect(load()).rejects.toThrow(
      `Invalid permission_sources in ${file}: expected a list of "opencode"`,
    )
  })

  it("TOOLBELT_PERMISSION is listed as a source and named on its rules", async () => {
    const loaded = await load({ TOOLBELT_PERMISSION: '{"bash":{"rm *":"deny"}}' })
    expect(loaded.sources).toEqual([
      { file: "TOOLBELT_PERMISSION", kind: "env", layer: "user", use: "applied" },
    ])
    expect(loaded.env[0]!.source).toEqual({
      origin: "TOOLBELT_PERMISSION",
      key: 'TOOLBELT_PERMISSION.bash["rm *"]',
    })
  })

  it("expands ~ with the environment's HOME", async () => {
    await write(join(project, "toolbelt.json"), {
      permission: { external_directory: { "~/work/*": "allow" } },
    })
    const loaded = await load()
    expect(loaded.project.rules[0]!.pattern).toBe(join(root, "home", "work", "*"))
  })

  it("an invalid action names the file and the key", async () => {
    const file = join(project, "toolbelt.json")
    await write(file, { permission: { bash: { "rm *": "never" } } })
    await expect(load()).rejects.toThrow(
      `Invalid permission.bash["rm *"] in ${file}: expected "allow", "ask" or "deny", got "never".`,
    )
  })
})
