import { AsyncLocalStorage } from "node:async_hooks"
import { dirname } from "node:path"
import { canonicalPath } from "./canonical-path.ts"
import { sweepOnce } from "./lock-sweep.ts"
import { acquireProcessLock, DEFAULT_LOCK_WAIT_MS, type ProcessLock } from "./process-lock.ts"

export interface LockOptions {
  /** Cancels the wait for the lock (never a holder that already runs): the call rejects with its reason. */
  signal?: AbortSignal
  /** How long (ms) to wait for another process's lock; default the process-wide `waitMs`. */
  waitMs?: number
}

/** How file locks reach other processes; process-wide (the composition root sets it from config). */
export interface FileLockSettings {
  /** Take the cross-process lock too (off only to measure its cost, or where no other process can write). */
  readonly crossProcess: boolean
  /** How long (ms) a writer waits for another process's lock before failing with a retry message. */
  readonly waitMs: number
  /** The lock directory; default `lockDirectory()` (`TOOLBELT_LOCK_DIR`, or a per-user temp directory). */
  readonly dir?: string | undefined
}

let settings: FileLockSettings = { crossProcess: true, waitMs: waitFromEnvironment() }

/** Changes the process-wide lock settings; returns the previous ones (so a test can put them back). */
export function configureFileLocks(changes: Partial<FileLockSettings>): FileLockSettings {
  const previous = settings
  settings = { ...settings, ...changes }
  return previous
}

/** `TOOLBELT_LOCK_WAIT_MS`, for command-line users and scripts; else `DEFAULT_LOCK_WAIT_MS`. */
function waitFromEnvironment(): number {
  const value = Number(process.env.TOOLBELT_LOCK_WAIT_MS)
  return Number.isFinite(value) && value >= 0 && process.env.TOOLBELT_LOCK_WAIT_MS !== ""
    ? value
    : DEFAULT_LOCK_WAIT_MS
}

interface Waiter {
  grant(): void
}

interface Lock {
  readonly queue: Waiter[]
}

/** A lock held by a running `fn`; `active` turns false on release. */
interface Holding {
  readonly key: string
  active: boolean
}

/** Canonical path → its lock. An entry exists exactly while someone holds the lock. */
const locks = new Map<string, Lock>()
/** The locks the current async context holds, to turn a self-deadlock into an error. */
const held = new AsyncLocalStorage<readonly Holding[]>()
/** Key resolutions run one after another, so locks are queued in the order the calls were made. */
let resolving: Promise<unknown> = Promise.resolve()

/**
 * Runs `fn` while holding the lock of one file, shared by every writer in this process.
 *
 * 1. Key the lock by the canonical path (`canonicalPath`), so a symlink, a relative path and the target
 *    all share one lock, also for a file that does not exist yet. `fn` receives that path.
 * 2. Wait for the lock: waiters are served first come, first served. Aborting `signal` while waiting
 *    leaves the queue and rejects; it does not touch the holder.
 * 3. Then take the file's cross-process lock (`acquireProcessLock`), so writers in other toolbelt
 *    processes are excluded too. It comes second so that waiters of this process queue in memory and only
 *    one of them at a time polls the lock file. It waits at most `waitMs` (then `FileLockTimeoutError`,
 *    naming the holder), and takes over the lock of a holder that died.
 * 4. Run `fn`; release both locks when it returns or throws.
 *
 * Not re-entrant: asking again for a lock the same call chain already holds throws instead of waiting
 * forever. Everything `fn` does to the file between reading it and replacing it is one step for every
 * toolbelt process; programs that do not take the lock (an editor, git) are not excluded, which is why the
 * tools still compare the file's version under the lock.
 */
export async function withFileLock<T>(
  path: string,
  fn: (canonical: string) => T | Promise<T>,
  options: LockOptions = {},
): Promise<T> {
  const [key] = await resolveKeys([path])
  return runLocked([key!], () => fn(key!), options)
}

/**
 * Runs `fn` while holding the locks of several files (duplicates and aliases merged). The locks are
 * taken one at a time in sorted order of their canonical paths, so two writers that lock overlapping sets
 * can never deadlock; the cross-process locks follow, in the same order, once every in-process lock is
 * held. `fn` receives the canonical paths in sorted order. An abort or a timeout while waiting releases
 * the locks already taken.
 */
export async function withFileLocks<T>(
  paths: readonly string[],
  fn: (canonical: string[]) => T | Promise<T>,
  options: LockOptions = {},
): Promise<T> {
  const keys = [...new Set(await resolveKeys(paths))].sort(compare)
  return runLocked(keys, () => fn([...keys]), options)
}

function resolveKeys(paths: readonly string[]): Promise<string[]> {
  const keys = resolving.then(() => Promise.all(paths.map((path) => canonicalPath(path))))
  resolving = keys.catch(() => {})
  return keys
}

async function runLocked<T>(
  keys: readonly string[],
  fn: () => T | Promise<T>,
  options: LockOptions,
): Promise<T> {
  const { signal } = options
  const outer = held.getStore() ?? []
  for (const key of keys) {
    if (outer.some((holding) => holding.active && holding.key === key))
      throw new Error(
        `The lock on ${key} is already held by this call; waiting for it again would deadlock. ` +
          "Take every lock the work needs once, with withFileLocks.",
      )
  }
  const holdings: Holding[] = []
  const shared: ProcessLock[] = []
  try {
    for (const key of keys) {
      await acquire(key, signal)
      holdings.push({ key, active: true })
    }
    const { crossProcess, waitMs, dir } = settings
    if (crossProcess) {
      for (const key of keys)
        shared.push(await acquireProcessLock(key, { waitMs: options.waitMs ?? waitMs, signal, dir }))
    }
    return await held.run([...outer, ...holdings], fn)
  } finally {
    for (const lock of shared.reverse()) lock.release()
    // What holders killed earlier left behind (see lock-sweep.ts), once per process, off the call's path.
    if (shared[0]) sweepOnce(dirname(shared[0].path))
    for (const holding of holdings.reverse()) {
      holding.active = false
      release(holding.key)
    }
  }
}

function acquire(key: string, signal: AbortSignal | undefined): Promise<void> {
  signal?.throwIfAborted()
  const lock = locks.get(key)
  if (!lock) {
    locks.set(key, { queue: [] })
    return Promise.resolve()
  }
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      const index = lock.queue.indexOf(waiter)
      if (index !== -1) lock.queue.splice(index, 1)
      reject(signal!.reason)
    }
    const waiter: Waiter = {
      grant() {
        signal?.removeEventListener("abort", onAbort)
        resolve()
      },
    }
    signal?.addEventListener("abort", onAbort, { once: true })
    lock.queue.push(waiter)
  })
}

/** Hands the lock to the next waiter, or drops it when nobody waits. */
function release(key: string): void {
  const lock = locks.get(key)
  if (!lock) return
  const next = lock.queue.shift()
  if (next) next.grant()
  else locks.delete(key)
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** How many files are locked right now (for tests and diagnostics). */
export function lockedFileCount(): number {
  return locks.size
}
