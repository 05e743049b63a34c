// Messages between the fallback's main thread and its workers, and the shared state word meanings.
import type { Found, TaskSpec } from "./task.ts"
import type { DirTask } from "./walk.ts"

export type ToWorker =
  /** Starts a search (the worker keeps it until the next one). `shared`: Int32Array(2) state words. */
  | {
      readonly type: "search"
      readonly id: number
      readonly spec: TaskSpec
      readonly shared: SharedArrayBuffer
    }
  /** Directories to walk for search `id`. */
  | { readonly type: "dirs"; readonly id: number; readonly dirs: readonly DirTask[] }
  /**
   * Modification times of these files (`paths`: joined by NUL, one string being far cheaper to post than
   * thousands): the newest `limit` are sent back (independent of any search).
   */
  | { readonly type: "stat"; readonly id: number; readonly paths: string; readonly limit: number }

export type FromWorker =
  | ({ readonly type: "found"; readonly id: number } & Found)
  /** Directories given back for idle workers. */
  | { readonly type: "donate"; readonly id: number; readonly dirs: DirTask[] }
  /** Done with everything it was given (after its last `found`). */
  | { readonly type: "idle"; readonly id: number }
  | { readonly type: "error"; readonly id: number; readonly message: string }
  /** Answer to `stat`: the newest `limit` files, and how many of the paths still exist. */
  | {
      readonly type: "stats"
      readonly id: number
      readonly paths: string[]
      readonly mtimes: number[]
      readonly existing: number
    }

/** Shared word 0: the search's state. */
export const RUNNING = 0
/** Stop at once, drop what was not posted (abort). */
export const CANCEL = 1
/** Stop, post what was found (timeout). */
export const STOP = 2
/** Shared word 1: how many workers wait for work (then busy ones donate). */
export const HUNGRY = 1
