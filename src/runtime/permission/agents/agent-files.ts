// Where agent files are looked for, and loading them: each broken one is reported, the rest load.

import { type Dirent, readdirSync, readFileSync } from "node:fs"
import { join, relative, sep } from "node:path"
import { globalDirs, homeDir, projectLevels } from "../../config/search-dirs.ts"
import type { Layer } from "../config.ts"
import type { AgentFile } from "./agent-file.ts"

/** The agent folders of one project level (or config dir), a later one winning for the same name. */
const PROJECT_FOLDERS = [join(".opencode", "agent"), join(".opencode", "agents"), join(".toolbelt", "agents")]

/** A name an agent file may have: letters, digits, `.`, `_`, `-`, and `/` between folder names. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*(?:\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/

/** An agent file that did not load, and why. */
export interface AgentFileError {
  readonly file: string
  readonly error: string
}

/**
 * The folders searched for agent files, lowest precedence first (an agent defined again later replaces
 * the earlier definition's settings and adds its rules after the earlier ones):
 * 1. The user's: opencode's `agent/` and `agents/` under its config dirs, then toolbelt's `agents/`.
 * 2. From the repository root down to the project directory, at each level `.opencode/agent/`,
 *    `.opencode/agents/`, `.toolbelt/agents/`.
 */
export function agentFolders(options: {
  readonly directory: string
  readonly worktree?: string
  readonly env?: NodeJS.ProcessEnv
}): string[] {
  return layeredAgentFolders(options).map(({ folder }) => folder)
}

/** `agentFolders`, each with whose it is: the user's (config dirs) or the project's. */
export function layeredAgentFolders(options: {
  readonly directory: string
  readonly worktree?: string
  readonly env?: NodeJS.ProcessEnv
}): { folder: string; layer: Layer }[] {
  const env = options.env ?? process.env
  const folders: { folder: string; layer: Layer }[] = []
  // 1. The user's.
  const global = globalDirs(env)
  for (const { dir } of global.filter((each) => each.kind === "opencode"))
    folders.push(
      { folder: join(dir, "agent"), layer: "user" },
      { folder: join(dir, "agents"), layer: "user" },
    )
  for (const { dir } of global.filter((each) => each.kind === "toolbelt"))
    folders.push({ folder: join(dir, "agents"), layer: "user" })
  // 2. The project.
  for (const level of projectLevels(options.directory, options.worktree ?? options.directory).reverse())
    for (const folder of PROJECT_FOLDERS) folders.push({ folder: join(level, folder), layer: "project" })
  // A folder that is both (a config dir inside the project) counts as the user's: it was named first.
  const seen = new Set<string>()
  return folders.filter(({ folder }) => !seen.has(folder) && seen.add(folder))
}

/** An agent file found, and whose it is. */
export interface FoundAgentFile extends AgentFile {
  readonly layer: Layer
}

/**
 * Every agent file (`*.md`, also in subfolders) of `agentFolders`, in their order. A file that cannot be
 * read or parsed is reported in `errors` and the others load; the YAML parser is imported only when
 * there is a file to parse.
 */
export async function loadAgentFiles(options: {
  readonly directory: string
  readonly worktree?: string
  readonly env?: NodeJS.ProcessEnv
}): Promise<{ files: FoundAgentFile[]; errors: AgentFileError[] }> {
  const env = options.env ?? process.env
  const files: FoundAgentFile[] = []
  const errors: AgentFileError[] = []
  for (const { folder, layer } of layeredAgentFolders(options)) {
    for (const file of await markdownFiles(folder)) {
      const name = relative(folder, file).slice(0, -".md".length).split(sep).join("/")
      if (!NAME.test(name)) {
        errors.push({
          file,
          error: `"${name}" is not an agent name: use letters, digits, ".", "_" and "-" (rename the file).`,
        })
        continue
      }
      try {
        const text = readFileSync(file, "utf8")
        const { parseAgentFile } = await import("./agent-file.ts")
        files.push({ ...parseAgentFile(text, { name, file, home: homeDir(env) }), layer })
      } catch (error) {
        errors.push({ file, error: (error as Error).message })
      }
    }
  }
  return { files, errors }
}

/** The `.md` files under `folder`, sorted; none when it does not exist. */
async function markdownFiles(folder: string): Promise<string[]> {
  let entries: Dirent[]
  try {
    entries = readdirSync(folder, { withFileTypes: true, recursive: true })
  } catch {
    return []
  }
  return entries
    .filter((entry) => (entry.isFile() || entry.isSymbolicLink()) && entry.name.endsWith(".md"))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort()
}
