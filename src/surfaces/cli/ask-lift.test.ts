import { mkdir } from "node:fs/promises"
import { join } from "node:path"
import { beforeEach, describe, expect, it } from "vitest"
import { loadPolicy } from "../../runtime/permission/agents/policy.ts"
import { policyRootEach, put } from "../../runtime/permission/fixtures/policy-root.ts"
import { howToLift } from "./ask-lift.ts"

let root: string
let project: string
let home: string
policyRootEach("toolbelt-ask-lift-", (made) => ({ root, project, home } = made))
beforeEach(async () => {
  await mkdir(join(project, ".git"))
})

const policy = (options: { trusted?: boolean; env?: NodeJS.ProcessEnv } = {}) =>
  loadPolicy({
    directory: project,
    worktree: project,
    dataDir: join(root, "data"),
    trusted: options.trusted ?? false,
    env: { HOME: home, XDG_CONFIG_HOME: join(home, ".config"), ...options.env },
  })

const ask = (permission: string, ...patterns: string[]) => ({ agent: "build", permission, patterns })

describe("howToLift", () => {
  it("an ask in the project's .opencode/config.toml: names that file, and says the user's config cannot lift it", async () => {
    const toml = await put(
      join(project, ".opencode", "config.toml"),
      '[permission]\nmy_custom_tool = "ask"\n',
    )
    // The person's own allow is there, and does not lift it.
    await put(
      join(home, ".config", "toolbelt", "toolbelt.json"),
      JSON.stringify({ permission: { my_custom_tool: "allow" } }),
    )
    const text = howToLift(await policy({ trusted: true }), ask("my_custom_tool", "test"))
    expect(text).toBe(
      `Re-run with --yes to approve it. The ask comes from "my_custom_tool": "ask" (permission.my_custom_tool in ${toml}), which is opencode's config, whose denies and asks hold for toolbelt's tools too, so your ~/.config/toolbelt/toolbelt.json cannot lift it: change or remove that rule in ${toml}.`,
    )
  })

  it("an ask in the project's toolbelt.json: the project's config holds whether trusted or not", async () => {
    const file = await put(join(project, "toolbelt.json"), JSON.stringify({ permission: { glob: "ask" } }))
    for (const trusted of [false, true]) {
      const text = howToLift(await policy({ trusted }), ask("glob", "*"))
      expect(text).toContain(`permission.glob in ${file}), which is the project's config`)
      expect(text).toContain(`cannot lift it: change or remove that rule in ${file}.`)
    }
  })

  it("an ask in the user's own file: change it there", async () => {
    const file = await put(
      join(home, ".config", "toolbelt", "toolbelt.json"),
      JSON.stringify({ permission: { bash: { "*": "allow", "git push *": "ask" } } }),
    )
    const text = howToLift(await policy(), ask("bash", "git status", "git push origin"))
    expect(text).toBe(
      `Re-run with --yes to approve it, or change the rule that asks, bash "git push *": "ask" (permission.bash["git push *"] in ${file}), in that file.`,
    )
  })

  it("an ask from TOOLBELT_PERMISSION: change the variable", async () => {
    const text = howToLift(
      await policy({ env: { TOOLBELT_PERMISSION: JSON.stringify({ webfetch: "ask" }) } }),
      ask("webfetch", "https://example.com/"),
    )
    expect(text).toMatch(
      /^Re-run with --yes to approve it, or change TOOLBELT_PERMISSION, which asks: "webfetch": "ask"/,
    )
  })

  it("one of toolbelt's defaults: its key set to allow in the user's config", async () => {
    const text = howToLift(await policy(), ask("read", ".env"))
    expect(text).toBe(
      'Re-run with --yes to approve it, or set permission.read["*.env"] to "allow" in ~/.config/toolbelt/toolbelt.json, over the rule that asks: read "*.env": "ask" (permission.read["*.env"] in toolbelt\'s defaults).',
    )
  })

  it("without a policy, or for an agent it does not know: the user's config, as before", async () => {
    const fallback = "Re-run with --yes to approve it, or allow it in ~/.config/toolbelt/toolbelt.json."
    expect(howToLift(undefined, ask("bash", "ls"))).toBe(fallback)
    expect(howToLift(await policy(), { ...ask("bash", "ls"), agent: "nobody" })).toBe(fallback)
  })
})
