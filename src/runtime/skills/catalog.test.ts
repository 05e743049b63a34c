import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { discoverSkills } from "./catalog.ts"
import { skillRoots } from "./locations.ts"

let root: string
let repo: string
let project: string
let home: string
let env: NodeJS.ProcessEnv

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-skills-")))
  repo = join(root, "repo")
  project = join(repo, "packages", "app")
  home = join(root, "home")
  await mkdir(join(repo, ".git"), { recursive: true })
  await mkdir(project, { recursive: true })
  await mkdir(home)
  env = { HOME: home, XDG_CONFIG_HOME: join(root, "xdg"), TOOLBELT_CONFIG_DIR: join(root, "tb-config") }
})

afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

/** Writes `<base>/<folder>/SKILL.md` with that name (default: the folder's) and description. */
async function skill(base: string, folder: string, options: { name?: string; description?: string } = {}) {
  await mkdir(join(base, folder), { recursive: true })
  await writeFile(
    join(base, folder, "SKILL.md"),
    `---\nname: ${options.name ?? folder}\ndescription: ${options.description ?? `from ${base}`}\n---\nBody of ${folder}.\n`,
  )
}

const find = () => discoverSkills({ directory: project, worktree: repo, env })

describe("where skills are found", () => {
  it("in every listed place of the project, its parents up to the repository root, and the user's dirs", async () => {
    const places = {
      "project-toolbelt": join(project, ".toolbelt", "skills"),
      "project-opencode-skill": join(project, ".opencode", "skill"),
      "project-opencode-skills": join(project, ".opencode", "skills"),
      "project-claude": join(project, ".claude", "skills"),
      "parent-toolbelt": join(repo, "packages", ".toolbelt", "skills"),
      "root-claude": join(repo, ".claude", "skills"),
      "global-toolbelt": join(home, ".config", "toolbelt", "skills"),
      "xdg-toolbelt": join(root, "xdg", "toolbelt", "skills"),
      "env-config-dir": join(root, "tb-config", "skills"),
      "global-opencode": join(home, ".config", "opencode", "skills"),
      "global-claude": join(home, ".claude", "skills"),
    }
    for (const [name, base] of Object.entries(places)) await skill(base, name)
    const catalog = await find()
    expect(catalog.errors).toEqual([])
    expect(catalog.skills.map((found) => [found.name, found.dir, found.scope])).toEqual(
      Object.entries(places)
        .map(([name, base]) => [
          name,
          join(base, name),
          name.match(/^(project|parent|root)/) ? "project" : "global",
        ])
        .sort((a, b) => (a[0]! < b[0]! ? -1 : 1)),
    )
  })

  it("not above the repository root, nor in folders without SKILL.md", async () => {
    await skill(join(root, ".claude", "skills"), "above-the-repo")
    await mkdir(join(project, ".claude", "skills", "empty-folder"), { recursive: true })
    await writeFile(join(project, ".claude", "skills", "loose-file.md"), "not a skill")
    expect((await find()).skills).toEqual([])
  })

  it("through a symbolic link to a skill folder", async () => {
    await skill(join(root, "shared"), "linked")
    await mkdir(join(project, ".claude", "skills"), { recursive: true })
    await symlink(join(root, "shared", "linked"), join(project, ".claude", "skills", "linked"))
    const catalog = await find()
    expect(catalog.get("linked")?.file).toBe(join(project, ".claude", "skills", "linked", "SKILL.md"))
  })

  it("resolves real paths; only the user's skills are pre-approved, by their real folder", async () => {
    await skill(join(root, "shared"), "linked")
    await mkdir(join(project, ".claude", "skills"), { recursive: true })
    await symlink(join(root, "shared", "linked"), join(project, ".claude", "skills", "linked"))
    await skill(join(project, ".toolbelt", "skills"), "local")
    await skill(join(root, "dotfiles"), "mine")
    await mkdir(join(home, ".claude", "skills"), { recursive: true })
    await symlink(join(root, "dotfiles", "mine"), join(home, ".claude", "skills", "mine"))
    await skill(join(root, "tb-config", "skills"), "global")
    const catalog = await find()
    expect(catalog.get("linked")).toMatchObject({
      dir: join(project, ".claude", "skills", "linked"),
      realDir: join(root, "shared", "linked"),
      realFile: join(root, "shared", "linked", "SKILL.md"),
      scope: "project",
    })
    expect([...catalog.preApprovedDirs].sort()).toEqual([
      join(root, "dotfiles", "mine"),
      join(root, "tb-config", "skills", "global"),
    ])
  })

  it("lists the places in the order their skills win", () => {
    const dirs = skillRoots({ directory: project, worktree: repo, env }).map((each) => each.dir)
    expect(dirs.slice(0, 4)).toEqual([
      join(project, ".toolbelt", "skills"),
      join(project, ".opencode", "skill"),
      join(project, ".opencode", "skills"),
      join(project, ".claude", "skills"),
    ])
    expect(dirs.indexOf(join(repo, ".claude", "skills"))).toBeLessThan(
      dirs.indexOf(join(root, "tb-config", "skills")),
    )
    expect(dirs.slice(-1)).toEqual([join(home, ".claude", "skills")])
  })
})

describe("what does not load, and duplicates", () => {
  it("reports a broken skill among the others, which still load", async () => {
    await skill(join(project, ".claude", "skills"), "good")
    await skill(join(project, ".claude", "skills"), "misnamed", { name: "other-name" })
    await mkdir(join(home, ".claude", "skills", "no-frontmatter"), { recursive: true })
    await writeFile(join(home, ".claude", "skills", "no-frontmatter", "SKILL.md"), "# Only markdown\n")
    await skill(join(repo, ".opencode", "skills"), "also-good")
    const catalog = await find()
    expect(catalog.skills.map((found) => found.name)).toEqual(["also-good", "good"])
    expect(catalog.errors).toEqual([
      {
        file: join(project, ".claude", "skills", "misnamed", "SKILL.md"),
        error: expect.stringContaining('name "other-name" does not match its folder "misnamed"'),
      },
      {
        file: join(home, ".claude", "skills", "no-frontmatter", "SKILL.md"),
        error: expect.stringContaining("no YAML frontmatter"),
      },
    ])
  })

  it("keeps the skill closest to the project and lists the others as shadowed", async () => {
    await skill(join(home, ".claude", "skills"), "deploy", { description: "global" })
    await skill(join(repo, ".claude", "skills"), "deploy", { description: "repository root" })
    await skill(join(project, ".claude", "skills"), "deploy", { description: "project, claude" })
    await skill(join(project, ".toolbelt", "skills"), "deploy", { description: "project, toolbelt" })
    const catalog = await find()
    expect(catalog.get("deploy")?.description).toBe("project, toolbelt")
    expect(catalog.shadowed.map((each) => each.description)).toEqual([
      "project, claude",
      "repository root",
      "global",
    ])
  })
})

describe("loading", () => {
  it("reads SKILL.md again: a change after start-up is what the skill says", async () => {
    await skill(join(project, ".claude", "skills"), "notes")
    const catalog = await find()
    await writeFile(
      join(project, ".claude", "skills", "notes", "SKILL.md"),
      "---\nname: notes\ndescription: now\n---\nNew body.\n",
    )
    expect((await catalog.load("notes"))?.body).toBe("New body.")
    expect(await catalog.load("missing")).toBeUndefined()
  })

  it("fails when SKILL.md no longer parses", async () => {
    await skill(join(project, ".claude", "skills"), "notes")
    const catalog = await find()
    await writeFile(join(project, ".claude", "skills", "notes", "SKILL.md"), "gone\n")
    await expect(catalog.load("notes")).rejects.toThrow(/no YAML frontmatter/)
  })

  it("finds nothing in a project without skills", async () => {
    const catalog = await find()
    expect(catalog.skills).toEqual([])
    expect(catalog.errors).toEqual([])
  })
})
