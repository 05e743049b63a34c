// Where plan mode keeps a session's plan (plan_enter names it, plan_exit reads it): a file the plan
// agent's rules let it edit (`.toolbelt/plans/*.md`, relative to the repository root).
import { join, relative, sep } from "node:path"

/** The plans' folder, relative to the repository root. */
export const PLANS_DIR = join(".toolbelt", "plans")

/**
 * The session's plan file: `<worktree>/.toolbelt/plans/<session>.md`. A session id is any string a caller
 * chose (`toolbelt call --session`), so every character but letters, digits, `_` and `-` becomes `_`:
 * the file stays in the plans folder.
 */
export function planPath(worktree: string, sessionID: string): string {
  return join(worktree, PLANS_DIR, `${sessionID.replace(/[^A-Za-z0-9_-]/g, "_") || "_"}.md`)
}

/** The plan file as the person reads it: relative to the project directory, with `/`. */
export function shownPlanPath(directory: string, path: string): string {
  return relative(directory, path).split(sep).join("/")
}
