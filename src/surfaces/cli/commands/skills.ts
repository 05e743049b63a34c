import { realpathSync } from "node:fs"
import { relative, sep } from "node:path"
import { findWorktree } from "../../../compose/worktree.ts"
import { homeDir, isInside } from "../../../runtime/config/search-dirs.ts"
import { discoverSkills, type Skill } from "../../../runtime/skills/catalog.ts"
import { type Command, parseCommandLine } from "../command-line.ts"
import { EXIT, type IO, writeJson } from "../io.ts"
import { projectDirectory } from "../project-dir.ts"

export const SKILLS_HELP = `Usage: toolbelt skills [--json] [--cwd DIR]

Lists the Agent Skills the skill tool offers in the project, and where each was found. A skill is a
folder holding a SKILL.md whose YAML frontmatter gives its "name" (the folder's name) and "description".

Searched, a skill found earlier winning over one of the same name found later:
  in the project directory and each parent up to the repository root, closest first:
    .toolbelt/skills/  .opencode/skill/  .opencode/skills/  .claude/skills/
  then the user's: ~/.config/toolbelt/skills/ ($XDG_CONFIG_HOME/toolbelt/skills/, $TOOLBELT_CONFIG_DIR/skills/),
    ~/.config/opencode/skill(s)/, ~/.claude/skills/

Skills that did not load (bad frontmatter, a name that is not the folder's) are reported on stderr.

Options:
  --json       print one object: {"skills": [{name, description, dir, file, realDir, realFile, scope}],
               "shadowed": [...], "errors": [{file, error}]}
  --cwd DIR    the project directory (default: the current directory)
  --trust      taken as on the other commands; the list is the same either way: a skill is instructions
               the model reads, not code toolbelt runs
  -h, --help   show this help
`

/** The command line `skills` takes. */
// `--trust` is taken as by every command that opens a project, so one command line works for all of them.
const SKILLS_LINE = { help: SKILLS_HELP, shared: ["json", "cwd", "trust"], positionals: false } as const

export const command: Command = { run: skillsCommand, help: SKILLS_HELP }

/**
 * Lists the project's skills.
 * 1. Find them as a toolbelt does (the project, its parents up to the repository root, the user's dirs).
 * 2. `--json`: one object. Otherwise one line per skill (name, description, where it came from), then
 *    the shadowed ones; the ones that failed to load go to stderr.
 */
export async function skillsCommand(argv: string[], io: IO): Promise<number> {
  const line = parseCommandLine({ argv, io, ...SKILLS_LINE })
  if (!line) return EXIT.ok
  const { values } = line

  // 1. Find them.
  const directory = realpathSync(projectDirectory(values.cwd, io.cwd))
  const worktree = findWorktree(directory)
  const catalog = await discoverSkills({ directory, worktree, env: io.env })

  // 2. Show them.
  if (values.json) {
    writeJson(io.stdout, { skills: catalog.skills, shadowed: catalog.shadowed, errors: catalog.errors })
    return EXIT.ok
  }
  const where = (skill: Skill) =>
    `${source(skill.file, { worktree, home: homeDir(io.env) })} (${skill.scope}${linksOutside(skill, worktree) ? `, links outside the project to ${skill.realFile}: loading it asks external_directory` : ""})`
  if (catalog.skills.length === 0) io.stdout.write("No skills found.\n")
  else {
    const width = Math.max(...catalog.skills.map((skill) => skill.name.length))
    for (const skill of catalog.skills) {
      const summary = oneLine(skill.description, 80)
      io.stdout.write(`${skill.name.padEnd(width)}  ${summary}  [${where(skill)}]\n`)
    }
  }
  for (const skill of catalog.shadowed) {
    const winner = catalog.get(skill.name)
    io.stdout.write(
      `shadowed: ${skill.name} [${where(skill)}]${winner ? ` by ${source(winner.file, { worktree, home: homeDir(io.env) })}` : ""}\n`,
    )
  }
  for (const failure of catalog.errors)
    io.stderr.write(`warning: skill ${failure.file} not loaded: ${failure.error}\n`)
  return EXIT.ok
}

/** A project's skill whose folder or SKILL.md really is outside the project (the user's are pre-approved). */
function linksOutside(skill: Skill, worktree: string): boolean {
  return (
    skill.scope === "project" && !(isInside(skill.realDir, worktree) && isInside(skill.realFile, worktree))
  )
}

/** A SKILL.md as people read it: relative to the repository inside it, from `~` in the home dir. */
function source(file: string, { worktree, home }: { worktree: string; home: string }): string {
  if (isInside(file, worktree)) return relative(worktree, file)
  if (isInside(file, home)) return `~${sep}${relative(home, file)}`
  return file
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ")
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}
