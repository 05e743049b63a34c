import { AsyncLocalStorage } from "node:async_hooks"
import { canonicalPath } from "./canonical-path.ts"

export interface LockOptions {
  /** Cancels the wait for the lock (never a holder that already runs): the call rejects with its reason. */
  signal?: AbortSignal
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
 * 3. Run `fn`; release the lock when it returns or throws.
 *
 * Not re-entrant: asking again for a lock the same call chain already holds throws instead of waiting
 * forever. Locks are per process; other processes are not excluded (writes stay atomic regardless).
 */
export async function withFileLock<T>(
  path: string,
  fn: (canonical: string) => T | Promise<T>,
  options: LockOptions = {},
): Promise<T> {
  const [key] = await resolveKeys([path])
  return runLocked([key!], () => fn(key!), options.signal)
}

/**
 * Runs `fn` while holding the locks of several files (duplicates and aliases merged). The locks are
 * taken one at a time in sorted order of their canonical paths, so two writers that lock overlapping sets
 * can never deadlock. `fn` receives the canonical paths in sorted order. An abort while waiting releases
 * the locks already taken.
 */
export async function withFileLocks<T>(
  paths: readonly string[],
  fn: (canonical: string[]) => T | Promise<T>,
  options: LockOptions = {},
): Promise<T> {
  const keys = [...new Set(await resolveKeys(paths))].sort(compare)
  return runLocked(keys, () => fn([...keys]), options.signal)
}

function resolveKeys(paths: readonly string[]): Promise<string[]> {
  const keys = resolving.then(() => Promise.all(paths.map((path) => canonicalPath(path))))
  resolving = keys.catch(() => {})
  return keys
}

async function runLocked<T>(
  keys: readonly string[],
  fn: () => T | Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  const outer = held.getStore() ?? []
  for (const key of keys) {
    if (outer.some((holding) => holding.active && holding.key === key))
      throw new Error(
        `The lock on ${key} is already held by this call; waiting for it again would deadlock. ` +
          "Take every lock the work needs once, with withFileLocks.",
      )
  }
  const holdings: Holding[] = []
  try {
    for (const key of keys) {
      await acquire(key, signal)
      holdings.push({ key, active: true })
    }
    return await held.run([...outer, ...holdings], fn)
  } finally {
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
