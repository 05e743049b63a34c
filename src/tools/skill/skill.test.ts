// The skill tool in a real toolbelt: skill folders on disk in the project and the user's home.
import { mkdir, symlink, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { type TempProject, tempProject } from "../../compose/fixtures/temp-project.ts"
import type { AskRequest } from "../../runtime/permission/service.ts"
import { completed, failed } from "../kit/fixtures/harness.ts"

let temp: TempProject
let root: string
let project: string
let home: string

beforeEach(async () => {
  temp = await tempProject("toolbelt-skill-tool-")
  ;({ root, project, home } = temp)
})

afterEach(() => temp.remove())

const toolbelt = (config: Record<string, unknown> = {}) => temp.toolbelt({ config })

async function skill(base: string, name: string, description: string, body = `Instructions of ${name}.`) {
  await mkdir(join(base, name), { recursive: true })
  await writeFile(
    join(base, name, "SKILL.md"),
    `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`,
  )
  return join(base, name)
}

describe("what the model is offered", () => {
  it("lists every skill with its description; a broken one is reported like a tool file that did not load", async () => {
    await skill(join(project, ".claude", "skills"), "pdf", "Fill and read PDF forms.")
    await skill(join(home, ".claude", "skills"), "release", "Cut a release:\n  tag, changelog, publish.")
    await skill(join(project, ".toolbelt", "skills"), "broken", "Named wrong.", "x")
    await writeFile(
      join(project, ".toolbelt", "skills", "broken", "SKILL.md"),
      "---\nname: not-broken\ndescription: d\n---\n",
    )
    const tb = await toolbelt()
    const offered = (await tb.tools()).find((tool) => tool.name === "skill")
    expect(offered?.description).toContain(
      "Available skills:\n- pdf: Fill and read PDF forms.\n- release: Cut a release: tag, changelog, publish.",
    )
    expect(offered?.annotations.readOnly).toBe(true)
    expect(tb.pluginErrors).toEqual([
      {
        spec: join(project, ".toolbelt", "skills", "broken", "SKILL.md"),
        kind: "skill",
        error: expect.stringContaining('name "not-broken" does not match its folder "broken"'),
      },
    ])
  })

  it("is not offered in a project that sees no skill", async () => {
    const tb = await toolbelt()
    expect((await tb.tools()).map((tool) => tool.name)).not.toContain("skill")
  })
})

describe("loading a skill", () => {
  it("returns the instructions, the base directory and its files, as opencode does", async () => {
    const dir = await skill(
      join(project, ".opencode", "skills"),
      "pdf",
      "PDF forms.",
      "# PDF\n\nRun scripts/fill.py.",
    )
    await mkdir(join(dir, "scripts"))
    await writeFile(join(dir, "scripts", "fill.py"), "print(1)\n")
    await writeFile(join(dir, "reference.md"), "ref\n")
    await writeFile(join(dir, ".hidden-config"), "x\n")
    await symlink(join(root, "home"), join(dir, "link-to-elsewhere"))
    const tb = await toolbelt()
    const result = completed(await tb.call({ tool: "skill", input: { name: "pdf" } }))
    expect(result.title).toBe("Loaded skill: pdf")
    expect(result.metadata).toMatchObject({ name: "pdf", dir })
    expect(result.output).toBe(
      [
        '<skill_content name="pdf">',
        "# Skill: pdf",
        "",
        "# PDF",
        "",
        "Run scripts/fill.py.",
        "",
        `Base directory for this skill: ${dir}`,
        "Relative paths in this skill (scripts, references, templates) are relative to this base directory.",
        "",
        "<skill_files>",
        `<file>${join(dir, ".hidden-config")}</file>`,
        `<file>${join(dir, "reference.md")}</file>`,
        `<file>${join(dir, "scripts", "fill.py")}</file>`,
        "</skill_files>",
        "</skill_content>",
      ].join("\n"),
    )
  })

  it("lists at most 10 files, and says the list is sampled when there are more", async () => {
    const dir = await skill(join(project, ".claude", "skills"), "many", "Many files.")
    for (let i = 0; i < 14; i++) await writeFile(join(dir, `file-${String(i).padStart(2, "0")}.txt`), "")
    const tb = await toolbelt()
    const { output } = completed(await tb.call({ tool: "skill", input: { name: "many" } }))
    expect(output.match(/<file>/g)).toHaveLength(10)
    expect(output).not.toContain("SKILL.md</file>")
    expect(output).toContain("Note: the file list is sampled (the first 10 files; the folder holds more).")
  })

  it("loads the closest of two skills with the same name", async () => {
    await skill(join(home, ".claude", "skills"), "deploy", "Global.", "Global instructions.")
    await skill(join(project, ".claude", "skills"), "deploy", "Project.", "Project instructions.")
    const tb = await toolbelt()
    const { output } = completed(await tb.call({ tool: "skill", input: { name: "deploy" } }))
    expect(output).toContain("Project instructions.")
  })

  it("fails for a name it does not know, listing the ones it does", async () => {
    await skill(join(project, ".claude", "skills"), "pdf", "PDF.")
    await skill(join(project, ".claude", "skills"), "docx", "Word.")
    const tb = await toolbelt()
    expect(failed(await tb.call({ tool: "skill", input: { name: "xlsx" } })).error).toBe(
      'Skill "xlsx" not found. Available skills: docx, pdf.',
    )
  })

  it("asks `skill` for the name: a rule denying it stops the load", async () => {
    await skill(join(project, ".claude", "skills"), "pdf", "PDF.")
    await skill(join(project, ".claude", "skills"), "secret", "Secret.")
    const tb = await toolbelt({ permission: { skill: { "*": "allow", secret: "deny" } } })
    completed(await tb.call({ tool: "skill", input: { name: "pdf" } }))
    const denied = failed(await tb.call({ tool: "skill", input: { name: "secret" } }))
    expect(denied.kind).toBe("permission")
    expect(denied.error).toContain('skill for "secret"')
  })

  it("reads SKILL.md as it is now, and says so when it no longer parses", async () => {
    const dir = await skill(join(project, ".claude", "skills"), "notes", "Notes.", "Old.")
    const tb = await toolbelt()
    await writeFile(join(dir, "SKILL.md"), "---\nname: notes\ndescription: Notes.\n---\nNew.\n")
    expect(completed(await tb.call({ tool: "skill", input: { name: "notes" } })).output).toContain("\nNew.\n")
    await writeFile(join(dir, "SKILL.md"), "no frontmatter any more\n")
    expect(failed(await tb.call({ tool: "skill", input: { name: "notes" } })).error).toBe(
      `Skill "notes" could not be loaded from ${join(dir, "SKILL.md")}: no YAML frontmatter: the file must start with a "---" line, then "name:" and "description:", then "---". Fix the file, or pick another skill.`,
    )
  })
})

describe("a skill's files", () => {
  it("are read without asking, though outside the project (as opencode); other paths there still ask", async () => {
    const dir = await skill(join(home, ".claude", "skills"), "release", "Release.", "Run scripts/tag.sh.")
    await mkdir(join(dir, "scripts"))
    await writeFile(join(dir, "scripts", "tag.sh"), "git tag v1\n")
    await writeFile(join(home, "private.txt"), "not a skill's\n")
    const asks: AskRequest[] = []
    const tb = await temp.toolbelt({
      decide: async (request) => {
        asks.push(request)
        return "reject"
      },
    })
    const script = completed(
      await tb.call({ tool: "read", input: { filePath: join(dir, "scripts", "tag.sh") } }),
    )
    expect(script.output).toContain("git tag v1")
    expect(asks).toEqual([])
    failed(await tb.call({ tool: "read", input: { filePath: join(home, "private.txt") } }))
    expect(asks.map((ask) => ask.permission)).toEqual(["external_directory"])
  })

  it("are asked about again when the config says so (the user's rules come after the pre-approval)", async () => {
    const dir = await skill(join(home, ".claude", "skills"), "release", "Release.")
    const tb = await toolbelt({ permission: { external_directory: { [join(dir, "*")]: "deny" } } })
    const denied = failed(await tb.call({ tool: "read", input: { filePath: join(dir, "SKILL.md") } }))
    expect(denied.error).toContain("The user has specified a rule which prevents you")
  })
})

describe("skills are paths like any other", () => {
  /** A toolbelt with no one to ask: every ask is recorded, then refused as unanswered. */
  async function headless() {
    const asks: AskRequest[] = []
    const tb = await temp.toolbelt({
      decide: async (request) => {
        asks.push(request)
        return { unanswered: "no one in this test" }
      },
    })
    return { tb, asks }
  }

  it("a project SKILL.md that links outside the project asks external_directory, and nothing of it is shown when refused", async () => {
    const outside = join(root, "outside")
    await mkdir(outside)
    await writeFile(
      join(outside, "notes.md"),
      "---\nname: notes\ndescription: Notes.\n---\nTOP SECRET OUTSIDE TEXT\n",
    )
    const dir = join(project, ".claude", "skills", "notes")
    await mkdir(dir, { recursive: true })
    await symlink(join(outside, "notes.md"), join(dir, "SKILL.md"))
    const { tb, asks } = await headless()
    const refused = failed(await tb.call({ tool: "skill", input: { name: "notes" } }))
    expect(refused.error).toContain("no one could be asked")
    expect(refused.error).not.toContain("TOP SECRET")
    expect(asks.map((ask) => [ask.permission, ask.patterns])).toEqual([
      ["external_directory", [join(outside, "*")]],
    ])
    expect(asks[0]?.metadata).toMatchObject({ filepath: join(outside, "notes.md") })
  })

  it("a project skill folder that links outside asks before loading, and its files ask when read", async () => {
    const outside = await skill(join(root, "elsewhere"), "deploy", "Deploy.", "Run scripts/go.sh.")
    await mkdir(join(outside, "scripts"))
    await writeFile(join(outside, "scripts", "go.sh"), "echo go\n")
    await mkdir(join(project, ".claude", "skills"), { recursive: true })
    await symlink(outside, join(project, ".claude", "skills", "deploy"))
    const { tb, asks } = await headless()
    failed(await tb.call({ tool: "skill", input: { name: "deploy" } }))
    expect(asks.map((ask) => [ask.permission, ask.patterns])).toEqual([
      ["external_directory", [join(outside, "*")]],
    ])
    const read = failed(
      await tb.call({
        tool: "read",
        input: { filePath: join(project, ".claude", "skills", "deploy", "scripts", "go.sh") },
      }),
    )
    expect(read.error).toContain("no one could be asked")
    expect(read.error).not.toContain("echo go")
    expect(asks.map((ask) => ask.permission)).toEqual(["external_directory", "external_directory"])
  })

  it("the user's own skill loads and its files read without an ask, by real path also through a link", async () => {
    // ~/.claude/skills is itself a link to the person's dotfiles, as many keep it.
    const real = await skill(join(root, "dotfiles", "skills"), "release", "Release.", "Run scripts/tag.sh.")
    await mkdir(join(real, "scripts"))
    await writeFile(join(real, "scripts", "tag.sh"), "git tag v1\n")
    await mkdir(join(home, ".claude"), { recursive: true })
    await symlink(join(root, "dotfiles", "skills"), join(home, ".claude", "skills"))
    const { tb, asks } = await headless()
    const loaded = completed(await tb.call({ tool: "skill", input: { name: "release" } }))
    expect(loaded.output).toContain("Run scripts/tag.sh.")
    expect(loaded.output).toContain(`Base directory for this skill: ${real}`)
    expect(loaded.output).toContain(`<file>${join(real, "scripts", "tag.sh")}</file>`)
    const script = completed(
      await tb.call({
        tool: "read",
        input: { filePath: join(home, ".claude", "skills", "release", "scripts", "tag.sh") },
      }),
    )
    expect(script.output).toContain("git tag v1")
    expect(asks).toEqual([])
  })

  it("a project skill inside the project loads without an ask", async () => {
    const dir = await skill(join(project, ".toolbelt", "skills"), "lint", "Lint.", "Run the linter.")
    const { tb, asks } = await headless()
    const loaded = completed(await tb.call({ tool: "skill", input: { name: "lint" } }))
    expect(loaded.output).toContain("Run the linter.")
    expect(loaded.metadata).toMatchObject({ name: "lint", dir })
    expect(asks).toEqual([])
  })
})
