// The lock that serialises writers of one file across processes: two agents, two MCP servers, or a
// script's parallel `toolbelt call`s on one project. Node has no flock(2), so the lock is a file created
// exclusively (a hard link of a complete identity file, so no one ever reads a half-written lock) that
// names its holder; a holder that died (`kill -9`, a crash) is recognised by its pid and start time and
// its lock is taken over.

import { linkSync, lstatSync, mkdirSync, readFileSync, type Stats, unlinkSync, writeFileSync } from "node:fs"
import { hostname, tmpdir, userInfo } from "node:os"
import { join } from "node:path"
import { randomBytes } from "../util/random.ts"
import { createSha256 } from "../util/sha256.ts"
import { errorCode, FileSystemError } from "./errors.ts"
import { currentProcess, processAlive } from "./process-identity.ts"

/** How long a writer waits for another process's lock before giving up, unless told otherwise. */
export const DEFAULT_LOCK_WAIT_MS = 10_000

/** Polling starts fast (a lock is usually held for a few ms) and backs off to this. */
const MAX_POLL_MS = 25

export interface ProcessLockOptions {
  /** Give up after this long (ms) with `FileLockTimeoutError`. */
  readonly waitMs: number
  /** Cancels the wait: rejects with the signal's reason. */
  readonly signal?: AbortSignal | undefined
  /** The directory of lock files; default `lockDirectory()`. */
  readonly dir?: string | undefined
}

/** What a lock file says about its holder. */
export interface LockHolder {
  readonly pid: number
  readonly start: string
  readonly boot: string
  /**
   * The holder's host name: a lock directory shared with another machine or container (a network mount,
   * a bind mount) holds pids this process cannot check, and those are never taken for dead.
   */
  readonly host?: string
  /** When the holder took the lock, epoch ms. */
  readonly since: number
  /** Unique to one holding: tells this holding from a later one by the same process. */
  readonly nonce: string
  /** The canonical path of the locked file (for people looking at the lock directory). */
  readonly path: string
}

/** A lock taken; `release` is synchronous so it can run in an exit handler. */
export interface ProcessLock {
  readonly path: string
  release(): void
}

/** A file's cross-process lock could not be taken; the message says why and what to do. */
export class FileLockError extends FileSystemError {}

/** The lock waited for was held by a live process the whole time. */
export class FileLockTimeoutError extends FileLockError {
  readonly holder: LockHolder | undefined

  constructor(file: string, waitedMs: number, holder: LockHolder | undefined, lockFile: string) {
    const who = holder
      ? `another toolbelt process (pid ${holder.pid}${holder.host && holder.host !== hostname() ? ` on ${holder.host}` : ""}) has been changing it since ${new Date(holder.since).toISOString()} ` +
        `(${((Date.now() - holder.since) / 1000).toFixed(1)} s ago)`
      : `its lock file ${lockFile} does not say who holds it (remove that file if no toolbelt process is running)`
    super(
      `The file ${file} is locked: ${who}, and this call waited ${(waitedMs / 1000).toFixed(1)} s for it. ` +
        "Nothing was changed by this call. Retry the edit (or write) in a moment (the file may have changed meanwhile: " +
        "if the retry says so, read it again first).",
      { path: file, code: "ELOCKED" },
    )
    this.holder = holder
  }
}

/**
 * Where lock files live: one directory per user under the system temp directory, or `TOOLBELT_LOCK_DIR`.
 *
 * Why there and not beside the file or in the data dir: every process that can write a file must find
 * the same lock, and processes sharing a project may have different data dirs (`TOOLBELT_DATA_DIR`), so
 * the data dir cannot hold it. Beside the file every process would agree, but each edit would create and
 * remove an entry in the project (file watchers and `git status` see it), and a holder killed with
 * `kill -9` would leave a stray file in the user's project until the next edit of that file. The temp
 * directory is shared by the user's processes, outlives none of them, and is cleaned by the system.
 * Per user (mode 0700, owner checked) so another user can neither read nor plant locks. Processes that
 * run with different TMPDIRs must share `TOOLBELT_LOCK_DIR` to exclude each other.
 */
export function lockDirectory(): string {
  const configured = process.env.TOOLBELT_LOCK_DIR
  if (configured) return configured
  const user = process.getuid?.() ?? userInfo().username
  return join(tmpdir(), `toolbelt-locks-${user}`)
}

/** Directories already created and checked by this process. */
const ready = new Set<string>()

function ensureDirectory(dir: string): void {
  if (ready.has(dir)) return
  let stats: Stats
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    stats = lstatSync(dir)
  } catch (error) {
    throw new FileLockError(
      `Cannot create the lock directory ${dir} (${errorCode(error) ?? String(error)}), so the file cannot be ` +
        "locked against other toolbelt processes. Set TOOLBELT_LOCK_DIR to a writable private directory.",
      { path: dir, cause: error },
    )
  }
  const uid = process.getuid?.()
  if (!stats.isDirectory() || (uid !== undefined && stats.uid !== uid))
    throw new FileLockError(
      `The lock directory ${dir} is not a directory owned by this user, so file locks cannot be kept there. ` +
        "Remove it, or set TOOLBELT_LOCK_DIR to a private directory.",
      { path: dir },
    )
  ready.add(dir)
}

/** The lock file of a canonical path: its SHA-256, so any path length and character set maps to one name. */
export function lockFileOf(canonical: string, dir = lockDirectory()): string {
  return join(dir, `${createSha256().update(canonical).digest("hex").slice(0, 40)}.lock`)
}

/** Locks held by this process, released if it exits while holding them. */
const heldByUs = new Map<string, string>()
let exitHookInstalled = false

/**
 * Takes the cross-process lock of the file `canonical`.
 *
 * 1. Try to create the lock file exclusively (`tryCreate`): done.
 * 2. Otherwise read its holder. A holder that no longer runs (another boot, no such pid, or the pid now
 *    belongs to a process started later) leaves a stale lock: remove it (`removeStale`, race-free between
 *    waiters) and try again at once.
 * 3. A live holder: sleep (1 ms, doubling to 25 ms, with jitter so waiters spread out) and try again, until
 *    `waitMs` has passed (`FileLockTimeoutError`, naming the holder) or `signal` aborts.
 */
export async function acquireProcessLock(
  canonical: string,
  options: ProcessLockOptions,
): Promise<ProcessLock> {
  const dir = options.dir ?? lockDirectory()
  ensureDirectory(dir)
  const lockFile = lockFileOf(canonical, dir)
  const holding: LockHolder = {
    ...identity(),
    since: 0,
    nonce: randomBytes(8).toString("hex"),
    path: canonical,
  }
  const started = Date.now()
  let pause = 1
  for (;;) {
    options.signal?.throwIfAborted()
    if (tryCreate(lockFile, { ...holding, since: Date.now() })) return held(lockFile, holding.nonce)
    const holder = readHolder(lockFile)
    if (holder === "missing") continue
    // Gone (or another waiter is removing it right now, then wait a moment like for a live holder).
    if (holder !== "unreadable" && !holderRunning(holder) && removeStale(lockFile, holder)) continue
    const waited = Date.now() - started
    if (waited >= options.waitMs)
      throw new FileLockTimeoutError(
        canonical,
        waited,
        holder === "unreadable" ? undefined : holder,
        lockFile,
      )
    await sleep(Math.min(pause * (0.5 + Math.random()), options.waitMs - waited), options.signal)
    pause = Math.min(pause * 2, MAX_POLL_MS)
  }
}

function held(lockFile: string, nonce: string): ProcessLock {
  heldByUs.set(lockFile, nonce)
  if (!exitHookInstalled) {
    exitHookInstalled = true
    // A process that exits (process.exit, an uncaught error) while a write runs leaves no lock behind.
    process.on("exit", () => {
      for (const [file, ours] of heldByUs) removeIfHolder(file, ours)
    })
  }
  let released = false
  return {
    path: lockFile,
    release() {
      if (released) return
      released = true
      heldByUs.delete(lockFile)
      removeIfHolder(lockFile, nonce)
    },
  }
}

/**
 * Creates `file` holding `holder`, or returns false when it exists. The content is written to a file of
 * our own first and hard-linked into place: the link either fails (EEXIST) or makes a complete file
 * appear at once, so a reader never sees an empty lock, and a holder killed mid-way leaves no lock.
 */
function tryCreate(file: string, holder: LockHolder): boolean {
  const own = `${file}.${holder.nonce}.new`
  writeFileSync(own, JSON.stringify(holder), { flag: "w", mode: 0o600 })
  try {
    linkSync(own, file)
    return true
  } catch (error) {
    if (errorCode(error) === "EEXIST") return false
    throw error
  } finally {
    try {
      unlinkSync(own)
    } catch {
      // Already gone: nothing to clean.
    }
  }
}

/** What the lock file `file` says: its holder, "missing", or "unreadable" (not a lock toolbelt wrote). */
export function readHolder(file: string): LockHolder | "missing" | "unreadable" {
  let text: string
  try {
    text = readFileSync(file, "utf8")
  } catch (error) {
    if (errorCode(error) === "ENOENT") return "missing"
    throw error
  }
  try {
    const holder = JSON.parse(text) as LockHolder
    if (typeof holder.pid === "number" && typeof holder.nonce === "string") return holder
  } catch {
    // Not ours: reported as unidentified, never removed.
  }
  return "unreadable"
}

/** Removes `file` when it is still the holding `nonce` (a later holder's lock is left alone). */
function removeIfHolder(file: string, nonce: string): void {
  const holder = readHolder(file)
  if (typeof holder !== "object" || holder.nonce !== nonce) return
  try {
    unlinkSync(file)
  } catch {
    // Already gone.
  }
}

/**
 * Removes the lock file `file` while it is still the dead holding `stale`, such that of all the waiters
 * that saw it, exactly one removes it, and none removes the lock a live process took after it.
 *
 * Checking the file and then unlinking it would race: another waiter may have removed the stale lock and
 * taken a new one in between, which we would then remove. So the right to remove holding N is itself a
 * lock, `<file>.claim-N`, created exclusively: only the claimant may remove the lock file, and only while
 * it still is N (nobody else can remove N meanwhile, so the check and the unlink cannot be separated by
 * another removal). A claimant that dies mid-claim is itself a dead holding M: whoever then claims
 * `<file>.claim-M` inherits its right to remove N. Claim files are removed once N is gone; a waiter that
 * claims N again afterwards finds the lock file is no longer N and does nothing. Returns false when a live
 * claimant is at it (the caller waits a moment), true when the caller may try to take the lock again.
 */
export function removeStale(file: string, stale: LockHolder): boolean {
  const claims: string[] = []
  let over = stale.nonce
  try {
    for (;;) {
      const claim = `${file}.claim-${over}`
      const mine: LockHolder = {
        ...identity(),
        since: Date.now(),
        nonce: randomBytes(8).toString("hex"),
        path: file,
      }
      if (tryCreate(claim, mine)) {
        claims.push(claim)
        const current = readHolder(file)
        if (typeof current === "object" && current.nonce === stale.nonce) unlinkSync(file)
        // Earlier claims in the chain (dead claimants') are done with too.
        for (let earlier = stale.nonce; ; ) {
          const path = `${file}.claim-${earlier}`
          if (path === claim) break
          const claimant = readHolder(path)
          if (typeof claimant !== "object") break
          claims.push(path)
          earlier = claimant.nonce
        }
        return true
      }
      const claimant = readHolder(claim)
      if (claimant === "missing") continue
      // A live claimant is removing it right now, or a claim we cannot read: back to waiting.
      if (claimant === "unreadable" || holderRunning(claimant)) return false
      over = claimant.nonce
    }
  } finally {
    for (const claim of claims) {
      try {
        unlinkSync(claim)
      } catch {
        // Already gone.
      }
    }
  }
}

function identity(): { pid: number; start: string; boot: string; host: string } {
  return { ...currentProcess(), boot: bootId(), host: hostname() }
}

/**
 * Whether the holder still runs: a holder on another host counts as running (its pid means nothing
 * here; its lock is waited for, never taken); else the same boot, and its pid still names the process
 * that took the lock.
 */
export function holderRunning(holder: LockHolder): boolean {
  if (holder.host !== undefined && holder.host !== hostname()) return true
  const boot = bootId()
  if (holder.boot && boot && holder.boot !== boot) return false
  return processAlive(holder)
}

let boot: string | undefined

/** The kernel's boot id, "" where unavailable: after a reboot every pid in an old lock is gone. */
function bootId(): string {
  if (boot === undefined) {
    try {
      boot = readFileSync("/proc/sys/kernel/random/boot_id", "latin1").trim()
    } catch {
      boot = ""
    }
  }
  return boot
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal!.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort)
      resolve()
    }, ms)
    signal?.addEventListener("abort", onAbort, { once: true })
  })
}
