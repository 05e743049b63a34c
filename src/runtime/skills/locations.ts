// Where skills are looked for, the most specific place first.

import { join } from "node:path"
import { globalDirs, homeDir, projectLevels } from "../config/search-dirs.ts"

/** A folder whose subfolders are skills (`<root>/<name>/SKILL.md`). */
export interface SkillRoot {
  readonly dir: string
  /** `project`: the project directory or one of its parents inside the repository; `global`: the user's. */
  readonly scope: "project" | "global"
}

/** The skill folders of one project level, in the order their skills win over each other. */
const PROJECT_FOLDERS = [
  join(".toolbelt", "skills"),
  join(".opencode", "skill"),
  join(".opencode", "skills"),
  join(".claude", "skills"),
]

/**
 * The folders searched for skills, a skill in an earlier one winning over one of the same name later:
 * 1. From the project directory up to the repository root (inclusive), at each level `.toolbelt/skills/`,
 *    `.opencode/skill/`, `.opencode/skills/`, `.claude/skills/`.
 * 2. The global config dirs, most specific first: toolbelt's (`$TOOLBELT_CONFIG_DIR/skills`,
 *    `$XDG_CONFIG_HOME/toolbelt/skills`, `~/.config/toolbelt/skills`), opencode's (`skill/`, `skills/`
 *    under `~/.config/opencode` and `$XDG_CONFIG_HOME/opencode`), then `~/.claude/skills`.
 */
export function skillRoots(options: {
  readonly directory: string
  readonly worktree: string
  readonly env?: NodeJS.ProcessEnv
}): SkillRoot[] {
  const env = options.env ?? process.env
  const roots: SkillRoot[] = []
  // 1. The project.
  for (const level of projectLevels(options.directory, options.worktree))
    for (const folder of PROJECT_FOLDERS) roots.push({ dir: join(level, folder), scope: "project" })
  // 2. The user's.
  const global = globalDirs(env).reverse()
  for (const { dir } of global.filter((each) => each.kind === "toolbelt"))
    roots.push({ dir: join(dir, "skills"), scope: "global" })
  for (const { dir } of global.filter((each) => each.kind === "opencode"))
    for (const folder of ["skill", "skills"]) roots.push({ dir: join(dir, folder), scope: "global" })
  roots.push({ dir: join(homeDir(env), ".claude", "skills"), scope: "global" })
  const seen = new Set<string>()
  return roots.filter(({ dir }) => !seen.has(dir) && seen.add(dir))
}
