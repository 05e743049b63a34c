// The fallback's directory walk, with ripgrep's ignore rules: `.rgignore` over `.ignore` over `.gitignore`
// over `.git/info/exclude`; a deeper directory's file over a shallower one's; `.gitignore` only inside a
// git repository (a directory with `.git`, this one or an ancestor), and not above that repository's root;
// ignore files of the directories above the search root apply too. Ignored directories are never read.
import { type Dirent, readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, sep } from "node:path"
import { IGNORE, IgnoreFile, NONE, type Verdict, WHITELIST } from "./ignore-file.ts"

/** The ignore files of one directory. */
interface LevelFiles {
  readonly rgignore?: IgnoreFile
  readonly ignore?: IgnoreFile
  readonly gitignore?: IgnoreFile
  readonly exclude?: IgnoreFile
}

/** A directory's ignore files with how to turn a root-relative path into a path relative to it. */
interface ActiveLevel {
  readonly files: LevelFiles
  /** Below (or at) the root: its root-relative path plus `/` ("" for the root), stripped from paths. */
  readonly strip: number
  /** Above the root: the root's path relative to it plus `/`, prepended to paths. */
  readonly prepend: string
  /** Its `.gitignore` and exclude file count (it is inside a repository, at or below its root). */
  readonly git: boolean
}

/** The rules in force in one directory: every level with ignore files, deepest first. */
export class IgnoreLevel {
  readonly active: readonly ActiveLevel[]
  /** Any level, this or above, has `.git`. */
  readonly anyGit: boolean
  /** Levels from here up to the first one with `.git` (their git files apply), used to build children. */
  readonly #chain: readonly { files: LevelFiles; strip: number; prepend: string; hasGit: boolean }[]

  private constructor(chain: { files: LevelFiles; strip: number; prepend: string; hasGit: boolean }[]) {
    this.#chain = chain
    this.anyGit = chain.some((level) => level.hasGit)
    const active: ActiveLevel[] = []
    let sawGit = false
    for (const level of chain) {
      const git = this.anyGit && !sawGit
      sawGit ||= level.hasGit
      const { files } = level
      if (files.rgignore || files.ignore || (git && (files.gitignore || files.exclude))) {
        active.push({ files, strip: level.strip, prepend: level.prepend, git })
      }
    }
    this.active = active
  }

  static readonly EMPTY = new IgnoreLevel([])

  /** The rules of `root`'s ancestors (the directories above it). */
  static above(root: string): IgnoreLevel {
    const chain: { files: LevelFiles; strip: number; prepend: string; hasGit: boolean }[] = []
    let dir = dirname(root)
    let previous = root
    while (dir !== previous) {
      const { files, hasGit } = readLevel(dir, undefined)
      chain.push({ files, strip: 0, prepend: `${toSlash(relative(dir, root))}/`, hasGit })
      previous = dir
      dir = dirname(dir)
    }
    return new IgnoreLevel(chain)
  }

  /** The rules inside a child directory (root-relative `rel`, "" for the root) with its own files. */
  child(rel: string, files: LevelFiles, hasGit: boolean): IgnoreLevel {
    if (!hasGit && !files.rgignore && !files.ignore && !files.gitignore && !files.exclude) return this
    const strip = rel === "" ? 0 : rel.length + 1
    return new IgnoreLevel([{ files, strip, prepend: "", hasGit }, ...this.#chain])
  }

  /** Ignore, whitelist or nothing for a root-relative `path` whose last component is `name`. */
  verdict(path: string, name: string, isDir: boolean): Verdict {
    let custom: Verdict = NONE
    let dot: Verdict = NONE
    let git: Verdict = NONE
    let exclude: Verdict = NONE
    for (const level of this.active) {
      const local =
        level.prepend === "" ? (level.strip === 0 ? path : path.slice(level.strip)) : level.prepend + path
      const { files } = level
      if (custom === NONE && files.rgignore) custom = files.rgignore.match(local, name, isDir)
      if (dot === NONE && files.ignore) dot = files.ignore.match(local, name, isDir)
      if (level.git) {
        if (git === NONE && files.gitignore) git = files.gitignore.match(local, name, isDir)
        if (exclude === NONE && files.exclude) exclude = files.exclude.match(local, name, isDir)
      }
    }
    return custom || dot || git || exclude
  }
}

const IGNORE_NAMES = [".rgignore", ".ignore", ".gitignore"] as const

/** Reads a directory's ignore files; `present` (names seen in its listing) saves failed opens. */
export function readLevel(
  dir: string,
  present: ReadonlySet<string> | undefined,
): { files: LevelFiles; hasGit: boolean } {
  const read = (name: string): IgnoreFile | undefined => {
    if (present && !present.has(name)) return undefined
    try {
      const file = new IgnoreFile(readFileSync(join(dir, name), "utf8"))
      return file.size > 0 ? file : undefined
    } catch {
      return undefined
    }
  }
  const [rgignore, ignore, gitignore] = IGNORE_NAMES.map(read)
  let hasGit = false
  let exclude: IgnoreFile | undefined
  if (!present || present.has(".git")) {
    const git = join(dir, ".git")
    const stats = statSync(git, { throwIfNoEntry: false })
    if (stats) {
      hasGit = true
      const gitDir = stats.isDirectory() ? git : linkedGitDir(git, dir)
      if (gitDir) {
        try {
          const file = new IgnoreFile(readFileSync(join(gitDir, "info", "exclude"), "utf8"))
          if (file.size > 0) exclude = file
        } catch {
          // No exclude file.
        }
      }
    }
  }
  return { files: { rgignore, ignore, gitignore, exclude }, hasGit }
}

/** A `.git` file (worktree, submodule) points at the git directory; its common directory holds `info/`. */
function linkedGitDir(file: string, dir: string): string | undefined {
  try {
    const match = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(file, "utf8"))
    if (!match) return undefined
    const gitDir = join(dir, match[1]!)
    try {
      return join(gitDir, readFileSync(join(gitDir, "commondir"), "utf8").trim())
    } catch {
      return gitDir
    }
  } catch {
    return undefined
  }
}

export function toSlash(path: string): string {
  return sep === "\\" ? path.replaceAll("\\", "/") : path
}

/** A file that is not ignored: its directory (root-relative, "" for the root and absolute) and its name. */
export type OnFile = (dir: string, name: string, absDir: string) => void

/** A directory to walk: its root-relative path, and (when following links) its ancestors' identities. */
export interface DirTask {
  readonly rel: string
  readonly ancestors?: readonly string[]
}

export interface WalkSettings {
  readonly root: string
  readonly hidden: boolean
  readonly follow: boolean
  /** Asked before each entry: true abandons the rest of the directory. */
  readonly stopped?: () => boolean
}

/** Walks directories one at a time; `onFile` gets every file that is not ignored. */
export class Walker {
  readonly #settings: WalkSettings
  readonly #onFile: OnFile
  readonly #levels = new Map<string, IgnoreLevel>()
  readonly #above: IgnoreLevel

  constructor(settings: WalkSettings, onFile: OnFile) {
    this.#settings = settings
    this.#onFile = onFile
    this.#above = IgnoreLevel.above(settings.root)
  }

  /** Lists one directory: files go to `onFile`, subdirectories that are not ignored are returned. */
  walk(task: DirTask): DirTask[] {
    const { root, hidden, follow } = this.#settings
    const { rel } = task
    const abs = rel === "" ? root : `${root}/${rel}`
    let ancestors = task.ancestors
    if (follow) {
      const stats = statSync(abs, { throwIfNoEntry: false })
      if (!stats) return []
      const id = `${stats.dev}:${stats.ino}`
      if (ancestors?.includes(id)) return [] // A link back to an ancestor: a loop.
      ancestors = [...(ancestors ?? []), id]
    }
    let entries: Dirent[]
    try {
      entries = readdirSync(abs, { withFileTypes: true })
    } catch {
      return []
    }
    let present: Set<string> | undefined
    for (const entry of entries) {
      const name = entry.name
      if (name.charCodeAt(0) !== 46) continue
      if (name === ".gitignore" || name === ".ignore" || name === ".rgignore" || name === ".git") {
        present ??= new Set()
        present.add(name)
      }
    }
    const parent = this.#parentLevel(rel)
    const { files, hasGit } = present ? readLevel(abs, present) : { files: {}, hasGit: false }
    const level = parent.child(rel, files, hasGit)
    this.#levels.set(rel, level)
    const subdirs: DirTask[] = []
    const checked = level.active.length > 0
    const stopped = this.#settings.stopped
    for (const entry of entries) {
      if (stopped?.()) break
      const name = entry.name
      if (name === ".git") continue
      let isDir = entry.isDirectory()
      let isFile = !isDir && entry.isFile()
      if (entry.isSymbolicLink()) {
        if (!follow) continue
        const target = statSync(`${abs}/${name}`, { throwIfNoEntry: false })
        if (!target) continue
        isDir = target.isDirectory()
        isFile = target.isFile()
      }
      if (!isDir && !isFile) continue
      let verdict: Verdict = NONE
      if (checked) {
        verdict = level.verdict(rel === "" ? name : `${rel}/${name}`, name, isDir)
        if (verdict === IGNORE) continue
      }
      if (!hidden && name.charCodeAt(0) === 46 && verdict !== WHITELIST) continue
      if (!isDir) this.#onFile(rel, name, abs)
      else {
        const path = rel === "" ? name : `${rel}/${name}`
        subdirs.push(ancestors ? { rel: path, ancestors } : { rel: path })
      }
    }
    return subdirs
  }

  /** The level in force in `rel`'s parent (read from disk when this walker has not listed it). */
  #parentLevel(rel: string): IgnoreLevel {
    if (rel === "") return this.#above
    const slash = rel.lastIndexOf("/")
    return this.#level(slash < 0 ? "" : rel.slice(0, slash))
  }

  #level(rel: string): IgnoreLevel {
    const known = this.#levels.get(rel)
    if (known) return known
    const abs = rel === "" ? this.#settings.root : `${this.#settings.root}/${rel}`
    const { files, hasGit } = readLevel(abs, undefined)
    const level = this.#parentLevel(rel).child(rel, files, hasGit)
    this.#levels.set(rel, level)
    return level
  }
}
