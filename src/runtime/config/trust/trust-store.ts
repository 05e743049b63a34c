// The projects a person has trusted, per user: which real path, pinned to which fingerprint, since when.
// A project is trusted only while what it would run still hashes to the fingerprint trusted.

import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { asSentence } from "../../../platform/text/sentence.ts"
import { randomBytes } from "../../../platform/util/random.ts"
import { homeDir } from "../search-dirs.ts"

/** One trusted project. */
export interface TrustEntry {
  /** The project's real path. */
  readonly directory: string
  /** The fingerprint of what it would run when it was trusted (`fingerprint.ts`). */
  readonly fingerprint: string
  /** When it was trusted (ms since the epoch). */
  readonly time: number
}

export class TrustStoreError extends Error {
  override readonly name = "TrustStoreError"
}

const VERSION = 1

/**
 * `$XDG_CONFIG_HOME/toolbelt/trusted-projects.json`, else `~/.config/toolbelt/trusted-projects.json`:
 * the user's, never the project's, so no repository can mark itself trusted.
 */
export function trustStoreFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CONFIG_HOME || join(homeDir(env), ".config"), "toolbelt", "trusted-projects.json")
}

/**
 * The per-user trust store: a JSON file of mode 0600, replaced whole by an atomic rename. A file that
 * cannot be read as the store is reported (`problem`) and trusts nothing; writing over it is refused,
 * so the person's other entries are not silently lost.
 */
export class TrustStore {
  readonly file: string

  constructor(options: { file?: string; env?: NodeJS.ProcessEnv } = {}) {
    this.file = options.file ?? trustStoreFile(options.env)
  }

  /** Why the file cannot be used (every project is then untrusted), or undefined when it can. */
  get problem(): string | undefined {
    const read = this.#read()
    return "problem" in read ? read.problem : undefined
  }

  /** Every trusted project, in the order they were trusted; none when the file is unusable. */
  list(): TrustEntry[] {
    const read = this.#read()
    return "problem" in read ? [] : read.entries
  }

  /** The entry for a project's real path, if it is trusted. */
  get(directory: string): TrustEntry | undefined {
    return this.list().find((entry) => entry.directory === directory)
  }

  /** Trusts `directory` (a real path) as it is now (`fingerprint`); replaces an older entry for it. */
  trust(directory: string, fingerprint: string): TrustEntry {
    const entries = this.#writable().filter((entry) => entry.directory !== directory)
    const entry: TrustEntry = { directory, fingerprint, time: Date.now() }
    this.#write([...entries, entry])
    return entry
  }

  /** Forgets `directory`; false when it was not trusted. */
  revoke(directory: string): boolean {
    const entries = this.#writable()
    const kept = entries.filter((entry) => entry.directory !== directory)
    if (kept.length === entries.length) return false
    this.#write(kept)
    return true
  }

  #writable(): TrustEntry[] {
    const read = this.#read()
    if ("problem" in read) throw new TrustStoreError(read.problem)
    return read.entries
  }

  #read(): { entries: TrustEntry[] } | { problem: string } {
    let text: string
    try {
      text = readFileSync(this.file, "utf8")
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { entries: [] }
      return {
        problem: `Cannot read the trust store ${this.file} (${(error as Error).message}); every project is untrusted until it can be read.`,
      }
    }
    const broken = (why: string) => ({
      problem: `The trust store ${this.file} is not valid (${why}); every project is untrusted. Delete the file and trust your projects again (toolbelt trust DIR).`,
    })
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (error) {
      return broken((error as Error).message)
    }
    if (!isRecord(value) || !Array.isArray(value.projects)) return broken('expected {"projects": [...]}')
    const entries: TrustEntry[] = []
    for (const item of value.projects) {
      if (
        !isRecord(item) ||
        typeof item.directory !== "string" ||
        typeof item.fingerprint !== "string" ||
        typeof item.time !== "number"
      )
        return broken("an entry without directory, fingerprint and time")
      entries.push({ directory: item.directory, fingerprint: item.fingerprint, time: item.time })
    }
    return { entries }
  }

  #write(entries: TrustEntry[]): void {
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 })
    const temp = `${this.file}.${randomBytes(6).toString("hex")}.tmp`
    try {
      writeFileSync(temp, `${JSON.stringify({ version: VERSION, projects: entries }, null, 2)}\n`, {
        mode: 0o600,
        flag: "wx",
      })
      // The mode given at creation is cut by the umask; the store is the user's alone.
      chmodSync(temp, 0o600)
      renameSync(temp, this.file)
    } catch (error) {
      rmSync(temp, { force: true })
      throw new TrustStoreError(
        `Cannot write the trust store ${this.file}: ${asSentence((error as Error).message)} Fix the permissions of its folder, or set TOOLBELT_DATA_DIR to a writable one.`,
      )
    }
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}
