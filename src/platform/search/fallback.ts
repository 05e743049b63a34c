// The in-process backend, for when ripgrep is not installed: worker threads walk the tree in parallel (a
// busy worker hands half its pending directories to an idle one), skip ignored directories without
// reading them, and search each file with the SIMD kernel (`scan-file.ts`).
import { availableParallelism } from "node:os"
import { asSentence } from "../text/sentence.ts"
import { monotonicMs } from "../util/clock.ts"
import { logger } from "../util/log.ts"
import {
  DEFAULT_TIMEOUT_MS,
  type FilesOptions,
  type FilesResult,
  type GrepFile,
  type GrepOptions,
  type GrepResult,
  type SearchBackend,
  SearchError,
  statRoot,
} from "./backend.ts"
import { type PooledWorker, pool } from "./pool.ts"
import { CANCEL, type FromWorker, HUNGRY, STOP } from "./protocol.ts"
import { compilePattern } from "./regex.ts"
import { type Hit, planContent, topNewest } from "./results.ts"
import { CHUNK, FileSearcher } from "./scan-file.ts"
import { Kernel } from "./simd.ts"
import { type Found, SearchTask, type TaskSpec } from "./task.ts"
import type { DirTask } from "./walk.ts"

export interface FallbackOptions {
  /** Worker threads; 0 walks in the calling thread. Default: the CPU count (at most 8). */
  readonly threads?: number
  /**
   * How long a search walks in the calling thread before the workers join (the root directory is always
   * walked here). Default 15 ms.
   */
  readonly headStartMs?: number
}

const log = logger("search")

/** A worker thread could not start (then the walk runs in the calling thread). */
class WorkerUnavailable extends Error {}

/** How long workers get to stop after a timeout or abort before they are terminated. */
const STOP_GRACE_MS = 500
/** How long a search walks in the calling thread before it hands what is left to the workers. */
const HEAD_START_MS = 15
/** What to do when a worker failed: ripgrep, forced, searches (and lists files for glob) without them. */
const RETRY_REMEDY =
  "Try again; if it fails again, set TOOLBELT_SEARCH_BACKEND=ripgrep (rg on PATH) to search without the workers."

export class FallbackBackend implements SearchBackend {
  readonly name = "fallback" as const
  #threads: number
  readonly #headStartMs: number

  constructor(options: FallbackOptions = {}) {
    this.#headStartMs = options.headStartMs ?? HEAD_START_MS
    const fromEnv = Number(process.env.TOOLBELT_SEARCH_THREADS)
    this.#threads =
      options.threads ??
      (Number.isInteger(fromEnv) && fromEnv >= 0 ? fromEnv : Math.min(availableParallelism(), 8))
  }

  /**
   * Lists files: walk (in parallel), keep those matching a glob, stat them; newest first, `limit` kept.
   */
  async files(root: string, options: FilesOptions = {}): Promise<FilesResult> {
    const walked = await this.#walk(
      {
        root,
        hidden: options.hidden ?? true,
        follow: options.follow ?? false,
        kind: "files",
        globs: options.pattern,
        limit: options.limit ?? Infinity,
      },
      options,
    )
    return {
      files: walked.top.map(({ path, mtimeMs }) => ({ path, mtimeMs })),
      total: walked.files,
      timedOut: walked.timedOut,
    }
  }

  /**
   * Searches: compile the pattern (invalid: SearchPatternError); count matching lines per file (in
   * parallel, or the one file); newest first; for content, read the lines (with context) of the files
   * that hold the first `limit` matches.
   */
  async grep(root: string, options: GrepOptions): Promise<GrepResult> {
    const pattern = compilePattern(options.pattern, options)
    const maxCount = options.maxCount ?? Infinity
    const stats = statRoot(root)
    const walked = await this.#walk(
      {
        root,
        hidden: options.hidden ?? true,
        follow: options.follow ?? false,
        kind: "grep",
        globs: options.include,
        pattern,
        limit: options.limit ?? Infinity,
        ...(Number.isFinite(maxCount) ? { maxCount } : {}),
        ...(stats.isFile() ? { single: true, globs: undefined } : {}),
      },
      options,
    )
    const limit = options.limit ?? Infinity
    const top = walked.top
    const mode = options.mode ?? "content"
    let files: GrepFile[]
    if (mode !== "content") files = top.map((hit) => ({ ...hit }))
    else {
      // Synchronous from here: the searcher's kernel is this thread's, and no other search interleaves.
      const searcher = new FileSearcher(pattern, mainKernel())
      const before = options.before ?? 0
      const after = options.after ?? 0
      files = []
      for (const { hit, quota } of planContent(top, limit, maxCount)) {
        options.signal?.throwIfAborted()
        const lines = searcher.collect(hit.path, { quota, before, after })
        if (lines) files.push({ ...hit, lines })
      }
    }
    return { files, totalMatches: walked.matches, totalFiles: walked.files, timedOut: walked.timedOut }
  }

  /**
   * Walks `spec.root` with the workers (or in this thread): the newest `spec.limit` hits (sorted, absolute
   * paths) and the counts of every file and matching line found.
   */
  async #walk(spec: TaskSpec, options: { signal?: AbortSignal; timeoutMs?: number }): Promise<Walked> {
    const { signal } = options
    signal?.throwIfAborted()
    const root = spec.root
    const stats = statRoot(root)
    if (!spec.single && !stats.isDirectory())
      throw new SearchError(`Cannot search ${root}: it is not a directory. Give a directory.`)
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
    // A time limit of zero has run out before the walk starts (a timer that fires "at once" would race
    // the workers, and a small tree could be done first).
    if (timeoutMs <= 0) return { top: [], files: 0, matches: 0, timedOut: true }
    let collected = new Collected(spec.limit ?? Infinity)
    let timedOut: boolean
    if (this.#threads === 0) timedOut = (await walkHere(spec, collected, signal, timeoutMs)).timedOut
    else {
      try {
        // A head start in this thread: a small tree is walked before a worker could even start (a cold
        // worker takes ~90 ms); a large one goes on with the workers from where this stopped.
        const deadline = monotonicMs() + timeoutMs
        // A regular expression the caller wrote can backtrack for minutes on one line, and only a worker
        // can be stopped then (terminated at the time limit): this thread searches only when a literal
        // decides every line (a plain word, or words in alternation: no backtracking).
        const here = spec.kind === "files" || spec.pattern?.literalIsMatch === true
        const head = here
          ? await walkHere(spec, collected, signal, timeoutMs, this.#headStartMs)
          : { timedOut: false, left: [{ rel: "" }] }
        timedOut = head.timedOut
        if (!timedOut && head.left.length > 0) {
          const rest = Math.max(0, deadline - monotonicMs())
          timedOut =
            rest === 0 || (await walkWithWorkers(spec, this.#threads, collected, signal, rest, head.left))
        }
      } catch (error) {
        if (!(error instanceof WorkerUnavailable)) throw error
        // Worker threads cannot start here: walk in this thread from now on.
        log.warn("search workers unavailable; searching in the calling thread", { error: error.message })
        this.#threads = 0
        collected = new Collected(spec.limit ?? Infinity)
        timedOut = (await walkHere(spec, collected, signal, timeoutMs)).timedOut
      }
    }
    const prefix = root.endsWith("/") ? root : `${root}/`
    const top = collected.top().map((hit) => ({ ...hit, path: spec.single ? root : prefix + hit.path }))
    return { top, files: collected.files, matches: collected.matches, timedOut }
  }
}

interface Walked {
  readonly top: Hit[]
  readonly files: number
  readonly matches: number
  readonly timedOut: boolean
}

/** What the threads sent: each one's current newest (or everything, unlimited) and its counts. */
class Collected {
  readonly #limit: number
  readonly #bySource = new Map<unknown, { hits: Hit[]; files: number; matches: number }>()

  constructor(limit: number) {
    this.#limit = limit
  }

  add(source: unknown, found: Found): void {
    let entry = this.#bySource.get(source)
    if (!entry) {
      entry = { hits: [], files: 0, matches: 0 }
      this.#bySource.set(source, entry)
    }
    const hits: Hit[] = found.snapshot ? [] : entry.hits
    for (let k = 0; k < found.paths.length; k++) {
      hits.push({ path: found.paths[k]!, mtimeMs: found.mtimes[k]!, count: found.counts[k]! })
    }
    entry.hits = hits
    entry.files = found.files
    entry.matches = found.matches
  }

  get files(): number {
    let files = 0
    for (const entry of this.#bySource.values()) files += entry.files
    return files
  }

  get matches(): number {
    let matches = 0
    for (const entry of this.#bySource.values()) matches += entry.matches
    return matches
  }

  /** The newest `limit` over all threads, sorted (paths relative to the root). */
  top(): Hit[] {
    const all: Hit[] = []
    for (const entry of this.#bySource.values()) for (const hit of entry.hits) all.push(hit)
    return topNewest(all, this.#limit)
  }
}

/**
 * The walk in this thread, yielding to the event loop now and then so timeouts and aborts are seen.
 * With `budgetMs`, it stops after about that long and returns the directories left to walk (shallowest
 * first) for the workers.
 */
async function walkHere(
  spec: TaskSpec,
  collected: Collected,
  signal: AbortSignal | undefined,
  timeoutMs: number,
  budgetMs = Infinity,
): Promise<{ timedOut: boolean; left: DirTask[] }> {
  const task = new SearchTask(spec)
  const stack: DirTask[] = [{ rel: "" }]
  const started = monotonicMs()
  const deadline = started + timeoutMs
  let slice = started
  let timedOut = false
  while (stack.length > 0) {
    if (monotonicMs() - slice > 20) {
      await new Promise((resolve) => setImmediate(resolve))
      signal?.throwIfAborted()
      slice = monotonicMs()
    }
    if (monotonicMs() > deadline) {
      timedOut = true
      break
    }
    const subdirs = task.walk(stack.pop()!)
    for (let k = subdirs.length - 1; k >= 0; k--) stack.push(subdirs[k]!)
    // At least the root is walked here, so a budget of 0 still exercises the hand-over.
    if (monotonicMs() - started >= budgetMs) break
  }
  collected.add(task, task.take())
  return { timedOut, left: timedOut ? [] : stack }
}

let nextSearch = 1
let kernel: Kernel | undefined

/** This thread's kernel (one, reused: each holds a few MB; only synchronous code uses it). */
function mainKernel(): Kernel {
  kernel ??= new Kernel(CHUNK)
  return kernel
}

/**
 * The walk on worker threads.
 * 1. Every worker gets the search, and the directories the head start left are shared out. A worker
 *    walks depth first; while others wait (shared HUNGRY word), it donates the shallowest half of its
 *    stack, which this thread hands out.
 * 2. Found files stream back; all workers idle with nothing queued: done.
 * 3. Timeout: workers are told to stop and post what they have (then the result says `timedOut`).
 *    Abort: they are told to drop everything, and the promise rejects at once. A worker that does not
 *    stop within the grace period is terminated; the others go back to the pool when idle.
 */
function walkWithWorkers(
  spec: TaskSpec,
  threads: number,
  collected: Collected,
  signal: AbortSignal | undefined,
  timeoutMs: number,
  start: DirTask[] = [{ rel: "" }],
): Promise<boolean> {
  const id = nextSearch++
  const shared = new SharedArrayBuffer(8)
  const state = new Int32Array(shared)
  const workers = pool.acquire(threads)
  const busy = new Set<PooledWorker>()
  const queue: DirTask[] = [...start]
  let settled = false
  let timedOut = false
  let timer: NodeJS.Timeout | undefined
  let stopping: NodeJS.Timeout | undefined

  return new Promise((resolve, reject) => {
    const release = () => {
      clearTimeout(timer)
      clearTimeout(stopping)
      signal?.removeEventListener("abort", onAbort)
      // Workers still busy go back to the pool when they report idle, or are ended after the grace period.
      for (const pooled of workers) {
        if (!busy.has(pooled)) pool.release(pooled)
        else
          pooled.onMessage = (message) => {
            if (message.id === id && message.type === "idle") {
              busy.delete(pooled)
              pool.release(pooled)
            }
          }
      }
      if (busy.size > 0) {
        const grace = setTimeout(() => {
          for (const pooled of busy) pool.discard(pooled)
        }, STOP_GRACE_MS)
        grace.unref()
      }
    }
    const finish = (timedOut: boolean) => {
      if (settled) return
      settled = true
      release()
      resolve(timedOut)
    }
    const fail = (error: unknown) => {
      if (settled) return
      settled = true
      Atomics.store(state, 0, CANCEL)
      release()
      reject(error)
    }
    const onAbort = () => fail(signal!.reason)
    const dispatch = () => {
      const idle = workers.filter((pooled) => !busy.has(pooled) && !pooled.dead)
      let share = Math.ceil(queue.length / Math.max(idle.length, 1))
      for (const pooled of idle) {
        if (queue.length === 0) break
        const dirs = queue.splice(0, Math.max(share, 1))
        share = Math.ceil(queue.length / Math.max(idle.length - 1, 1))
        busy.add(pooled)
        pooled.post({ type: "dirs", id, dirs })
      }
      Atomics.store(state, HUNGRY, workers.length - busy.size)
      if (busy.size === 0 && queue.length === 0) finish(timedOut)
    }
    const onMessage = (pooled: PooledWorker) => (message: FromWorker) => {
      if (message.id !== id || settled) return
      switch (message.type) {
        case "found":
          collected.add(pooled, message)
          break
        case "donate":
          queue.push(...message.dirs)
          dispatch()
          break
        case "idle":
          busy.delete(pooled)
          dispatch()
          break
        case "error":
          fail(new SearchError(`The search worker failed: ${asSentence(message.message)} ${RETRY_REMEDY}`))
          break
      }
    }
    for (const pooled of workers) {
      pooled.onMessage = onMessage(pooled)
      pooled.onDeath = (error) => {
        busy.delete(pooled)
        fail(
          pooled.started
            ? new SearchError(`The search worker died: ${asSentence(error.message)} ${RETRY_REMEDY}`)
            : new WorkerUnavailable(error.message),
        )
      }
      pooled.post({ type: "search", id, spec, shared })
    }
    signal?.addEventListener("abort", onAbort, { once: true })
    timer = setTimeout(() => {
      // Stop the walk, keep what the workers post on their way out.
      timedOut = true
      queue.length = 0
      Atomics.store(state, 0, STOP)
      stopping = setTimeout(() => finish(true), STOP_GRACE_MS)
    }, timeoutMs)
    dispatch()
  })
}
