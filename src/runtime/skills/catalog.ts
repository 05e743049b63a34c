// The skills of one project: found once when the toolbelt opens, each SKILL.md read again when loaded.

import { type Dirent, readdirSync, readFileSync, realpathSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { basename, dirname, join } from "node:path"
import { isFile } from "../../platform/fs/file-type.ts"
import { type SkillRoot, skillRoots } from "./locations.ts"

/** A skill as found: its frontmatter and where it lives. */
export interface Skill {
  readonly name: string
  readonly description: string
  /** The skill's folder: relative paths in its instructions resolve against it. */
  readonly dir: string
  /** Its SKILL.md. */
  readonly file: string
  /** `dir` and `file` as they really are on disk, every symbolic link resolved (at start-up). */
  readonly realDir: string
  readonly realFile: string
  readonly scope: SkillRoot["scope"]
}

/** A skill that was found but not loaded: which SKILL.md, and why (with what to do). */
export interface SkillError {
  readonly file: string
  readonly error: string
}

/** A skill and its instructions as they are on disk now. */
export interface LoadedSkill extends Skill {
  /** SKILL.md without its frontmatter. */
  readonly body: string
}

type Parse = typeof import("./skill-file.ts").parseSkillFile

/** The skills a project sees, each name once (the most specific place wins), and those that failed. */
export class SkillCatalog {
  /** Sorted by name. */
  readonly skills: readonly Skill[]
  /** Skills whose name a more specific place already gave (listed, never loaded). */
  readonly shadowed: readonly Skill[]
  readonly errors: readonly SkillError[]
  /**
   * The folders whose files a model may read outside the project without an `external_directory` ask:
   * the real folders of the user's own skills (the global config dirs'). A project's skill is a path like
   * any other: reading it asks when its real path is outside the project, as `read` does.
   */
  readonly preApprovedDirs: readonly string[]
  readonly #byName: ReadonlyMap<string, Skill>

  constructor(found: { skills: Skill[]; shadowed?: Skill[]; errors?: SkillError[] }) {
    this.skills = [...found.skills].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    this.shadowed = found.shadowed ?? []
    this.errors = found.errors ?? []
    this.#byName = new Map(this.skills.map((skill) => [skill.name, skill]))
    this.preApprovedDirs = this.skills
      .filter((skill) => skill.scope === "global")
      .map((skill) => skill.realDir)
  }

  static readonly empty = new SkillCatalog({ skills: [] })

  get(name: string): Skill | undefined {
    return this.#byName.get(name)
  }

  /**
   * Reads the skill's SKILL.md again (it may have changed since start-up), from `from` when given (the
   * real path permission was decided on); throws when it no longer parses.
   */
  async load(name: string, options: { from?: string } = {}): Promise<LoadedSkill | undefined> {
    const skill = this.get(name)
    if (!skill) return undefined
    const { parseSkillFile } = await import("./skill-file.ts")
    const parsed = parseSkillFile(await readFile(options.from ?? skill.file, "utf8"), basename(skill.dir))
    return { ...skill, description: parsed.description, body: parsed.body }
  }
}

/**
 * Finds a project's skills.
 * 1. The folders of `skillRoots`, most specific first; each subfolder (or link to one) holding a
 *    `SKILL.md` is a skill. Missing folders are skipped.
 * 2. Each SKILL.md is parsed (the YAML parser is imported only when there is one). One that does not
 *    parse, or whose name is not its folder's, is an error; the others still load.
 * 3. A name already found in a more specific place is shadowed.
 * Each skill's folder and SKILL.md are resolved to their real paths: what the policy pre-approves and what
 * the `skill` tool asks about are real paths, never where a link happens to sit.
 */
export async function discoverSkills(options: {
  readonly directory: string
  readonly worktree: string
  readonly env?: NodeJS.ProcessEnv
}): Promise<SkillCatalog> {
  // 1. Candidate files, in order.
  const roots = skillRoots(options)
  const candidates = (await Promise.all(roots.map(skillFiles))).flat()
  if (candidates.length === 0) return SkillCatalog.empty

  // 2. Parse.
  const { parseSkillFile } = await import("./skill-file.ts")
  const parsed = await Promise.all(candidates.map((candidate) => parseCandidate(candidate, parseSkillFile)))

  // 3. The most specific place wins.
  const skills = new Map<string, Skill>()
  const shadowed: Skill[] = []
  const errors: SkillError[] = []
  for (const result of parsed) {
    if ("error" in result) errors.push(result)
    else if (skills.has(result.name)) shadowed.push(result)
    else skills.set(result.name, result)
  }
  return new SkillCatalog({ skills: [...skills.values()], shadowed, errors })
}

interface Candidate {
  readonly file: string
  readonly scope: SkillRoot["scope"]
}

/** `<root>/<folder>/SKILL.md` for every subfolder that has one, sorted by folder name. */
async function skillFiles(root: SkillRoot): Promise<Candidate[]> {
  let entries: Dirent[]
  try {
    entries = readdirSync(root.dir, { withFileTypes: true })
  } catch {
    return [] // missing, or not a directory
  }
  const folders = entries
    .filter((entry) => entry.isDirectory() || entry.isSymbolicLink())
    .map((entry) => entry.name)
    .sort()
  // A folder without SKILL.md (or a link to nothing) is not a skill.
  return folders
    .map((folder) => join(root.dir, folder, "SKILL.md"))
    .filter(isFile)
    .map((file) => ({ file, scope: root.scope }))
}

async function parseCandidate(candidate: Candidate, parse: Parse): Promise<Skill | SkillError> {
  const dir = dirname(candidate.file)
  try {
    const { name, description } = parse(readFileSync(candidate.file, "utf8"), basename(dir))
    const [realDir, realFile] = [realpathSync(dir), realpathSync(candidate.file)]
    return { name, description, dir, file: candidate.file, realDir, realFile, scope: candidate.scope }
  } catch (error) {
    return { file: candidate.file, error: (error as Error).message }
  }
}
