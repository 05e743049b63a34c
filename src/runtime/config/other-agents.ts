// Where another agent's config is (opencode's: `opencode.json(c)`, `.opencode/config.toml`), and which of
// its keys toolbelt reads: only its permission rules and agents. Its other keys (model, theme, ...) are
// opencode's own business, not mistakes, so they are listed as not used, never reported as unknown.

import { join } from "node:path"
import { globalDirs } from "./search-dirs.ts"

/** opencode's JSON config files, in a directory that has them. */
const JSON_NAMES = ["opencode.json", "opencode.jsonc"] as const

/**
 * The keys of another agent's config that toolbelt reads: its rules and agents (`permission/config.ts`),
 * and of `experimental` the spec's `batch_tool` (`compose/open-project.ts`).
 */
export const OTHER_AGENT_KEYS: readonly string[] = ["permission", "agent", "experimental"]

/**
 * The user's opencode config files, lowest precedence first: in `~/.config/opencode/` and
 * `$XDG_CONFIG_HOME/opencode/`, `opencode.json`, `opencode.jsonc`, then `config.toml` (the user's
 * counterpart of a project's `.opencode/config.toml`, as `~/.config/opencode/agent/` is of `.opencode/agent/`).
 */
export function opencodeUserFiles(env: NodeJS.ProcessEnv = process.env): string[] {
  return globalDirs(env)
    .filter((each) => each.kind === "opencode")
    .flatMap(({ dir }) => [...JSON_NAMES.map((name) => join(dir, name)), join(dir, "config.toml")])
}

/**
 * The opencode config files of a directory toolbelt reads its own config from, lowest precedence first:
 * `opencode.json`, `opencode.jsonc`, and for the project directory `.opencode/config.toml` (the spec's
 * step 2 of adding a custom tool). Inside `.toolbelt/` there are none.
 */
export function opencodeFilesIn(dir: string, place: "user" | "project" | "toolbelt-dir"): string[] {
  if (place === "toolbelt-dir") return []
  const files = JSON_NAMES.map((name) => join(dir, name))
  if (place === "project") files.push(join(dir, ".opencode", "config.toml"))
  return files
}

/** A config file the permission policy may read: whose (toolbelt's or opencode's) and whose layer. */
export interface PermissionFile {
  readonly file: string
  readonly kind: "toolbelt" | "opencode"
  /** `project`: the project directory's and its `.toolbelt/`'s; `user`: every other. */
  readonly layer: "user" | "project"
}

/**
 * Every config file the permission policy may read, lowest precedence first (each once): the user's
 * opencode files, then for each of `dirs` (toolbelt's config dirs, the project's last) opencode's files
 * there before toolbelt's `toolbelt.json`, `toolbelt.jsonc`.
 */
export function permissionFiles(
  project: string,
  dirs: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): PermissionFile[] {
  const out: PermissionFile[] = opencodeUserFiles(env).map((file) => ({
    file,
    kind: "opencode",
    layer: "user",
  }))
  const dotDir = join(project, ".toolbelt")
  for (const dir of dirs) {
    const layer = dir === project || dir === dotDir ? "project" : "user"
    const place = dir === dotDir ? "toolbelt-dir" : dir === project ? "project" : "user"
    for (const file of opencodeFilesIn(dir, place)) out.push({ file, kind: "opencode", layer })
    for (const name of ["toolbelt.json", "toolbelt.jsonc"])
      out.push({ file: join(dir, name), kind: "toolbelt", layer })
  }
  const seen = new Set<string>()
  return out.filter(({ file }) => !seen.has(file) && seen.add(file))
}

/** The keys of another agent's config value that toolbelt does not read (`$schema` aside), in order. */
export function unreadKeys(value: Readonly<Record<string, unknown>>): string[] {
  return Object.keys(value).filter((key) => key !== "$schema" && !OTHER_AGENT_KEYS.includes(key))
}
