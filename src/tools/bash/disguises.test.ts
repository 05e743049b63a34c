import { existsSync } from "node:fs"
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createToolbelt, type Toolbelt } from "../../compose/toolbelt.ts"
import { DISGUISES, type Outcome } from "../../platform/shell/parse/fixtures/disguises.ts"
import type { AskRequest } from "../../runtime/permission/service.ts"

/**
 * The disguise corpus through the real pipeline (`createToolbelt` reading `toolbelt.json`, the bash tool,
 * the permission engine), as `toolbelt call bash` runs it: a denied or asked command must not run, and
 * one that runs must not have touched `victim`.
 */

interface Project {
  readonly dir: string
  readonly toolbelt: Toolbelt
  readonly asked: AskRequest[]
}

async function project(rules: Record<string, string>): Promise<Project> {
  const dir = await mkdtemp(join(tmpdir(), "toolbelt-disguises-"))
  await mkdir(join(dir, "project"))
  const root = join(dir, "project")
  await writeFile(join(root, "toolbelt.json"), JSON.stringify({ permission: { bash: rules } }))
  await writeFile(join(root, "list"), "victim\n")
  await writeFile(join(root, "script.sh"), "echo from script\n")
  const asked: AskRequest[] = []
  const toolbelt = await createToolbelt({
    directory: root,
    dataDir: join(dir, "data"),
    store: "memory",
    customTools: false,
    mcp: false,
    sweep: false,
    // Nobody to ask: record the ask and refuse it, as `toolbelt call` does without a terminal.
    decide: async (request) => {
      asked.push(request)
      return "reject"
    },
  })
  return { dir: root, toolbelt, asked }
}

/** Runs `command` through the bash tool; the outcome the policy gave, and whether `victim` survived. */
async function decide(
  at: Project,
  command: string,
): Promise<{ outcome: Outcome; error?: string; kept: boolean }> {
  const victim = join(at.dir, "victim")
  await writeFile(victim, "precious\n")
  const before = at.asked.length
  const result = await at.toolbelt.call({
    tool: "bash",
    input: { command, description: "probe", timeout: 5000 },
  })
  const kept = existsSync(victim)
  if (result.status === "completed") return { outcome: "allow", kept }
  const outcome: Outcome =
    at.asked.length > before ? "ask" : /rule which prevents/.test(result.error) ? "deny" : "allow"
  return { outcome, error: result.error, kept }
}

describe('the disguise corpus under {"*": "allow", "rm *": "deny"}', () => {
  let at: Project
  beforeAll(async () => {
    at = await project({ "*": "allow", "rm *": "deny" })
  })
  afterAll(async () => {
    at.toolbelt.close()
    await rm(join(at.dir, ".."), { recursive: true, force: true })
  })

  it("holds at least 150 commands, each once", () => {
    expect(DISGUISES.length).toBeGreaterThanOrEqual(150)
    expect(new Set(DISGUISES.map((entry) => entry.command)).size).toBe(DISGUISES.length)
  })

  it.each(DISGUISES.map((entry) => [entry.command, entry.outcome] as const))(
    "%j → %s",
    async (command, expected) => {
      const result = await decide(at, command)
      expect({ outcome: result.outcome, error: result.error }).toMatchObject({ outcome: expected })
      // Whatever was decided, `victim` is still there: nothing the policy let through removed it.
      expect(result.kept).toBe(true)
    },
  )

  it("asks about a computed command word with the reason, which the refusal carries", async () => {
    const before = at.asked.length
    await decide(at, "$(echo rm) victim")
    const request = at.asked[before]!
    expect(request.patterns).toContain("$(echo rm) victim")
    expect(request.metadata.unchecked).toMatchObject({
      patterns: ["$(echo rm) victim"],
      reason: expect.stringContaining("computed at run time"),
      advice: expect.stringContaining("literally"),
    })
  })
})

describe("the strictest outcome the rules could give", () => {
  const unchecked = DISGUISES.filter((entry) => entry.outcome === "ask").map((entry) => entry.command)

  it('asks when a rule asks ({"*": "allow", "rm *": "ask"})', async () => {
    const at = await project({ "*": "allow", "rm *": "ask" })
    try {
      for (const command of [
        "$(echo rm) victim",
        '"$@"',
        'eval "$x"',
        "source script.sh",
        "FOO=1 rm victim",
      ]) {
        expect((await decide(at, command)).outcome, command).toBe("ask")
      }
    } finally {
      at.toolbelt.close()
      await rm(join(at.dir, ".."), { recursive: true, force: true })
    }
  })

  it('denies when the catch-all denies ({"*": "deny", "echo *": "allow"})', async () => {
    const at = await project({ "*": "deny", "echo *": "allow" })
    try {
      for (const command of unchecked.slice(0, 10))
        expect((await decide(at, command)).outcome, command).toBe("deny")
      expect((await decide(at, "echo rm")).outcome).toBe("allow")
    } finally {
      at.toolbelt.close()
      await rm(join(at.dir, ".."), { recursive: true, force: true })
    }
  })

  it('allows when the rules only allow ({"*": "allow"})', async () => {
    const at = await project({ "*": "allow" })
    try {
      for (const command of [
        "$(echo echo) hi",
        '"$@"',
        'eval "$x"',
        "source script.sh",
        "$CMD",
        "if then fi",
      ]) {
        expect((await decide(at, command)).outcome, command).toBe("allow")
      }
    } finally {
      at.toolbelt.close()
      await rm(join(at.dir, ".."), { recursive: true, force: true })
    }
  })

  it("lets a rule that names the unchecked command decide it", async () => {
    const at = await project({ "*": "allow", "rm *": "deny", '"$@"': "allow" })
    try {
      expect((await decide(at, '"$@"')).outcome).toBe("allow")
      expect((await decide(at, "$CMD victim")).outcome).toBe("ask")
    } finally {
      at.toolbelt.close()
      await rm(join(at.dir, ".."), { recursive: true, force: true })
    }
  })
})
