// One transaction's life, the same on both engines: begin, run, commit or roll back.

/** How an engine begins, commits and rolls back one level (a transaction, or a savepoint inside one). */
export interface TransactionSteps {
  begin(): void
  commit(): void
  rollback(): void
  /** Called once `fn` has returned or thrown, before the commit or the rollback (the level is left). */
  left(): void
}

/**
 * Runs `fn` in one level of transaction.
 * 1. Begins; runs `fn`; a promise from it is refused (the work is rolled back and a TypeError thrown),
 *    since the connection cannot be held across an await.
 * 2. Commits when `fn` returned; rolls back when it threw (rethrown), or when the commit failed.
 */
export function runTransaction<T>(fn: () => T, steps: TransactionSteps): T {
  steps.begin()
  let result: T
  try {
    result = fn()
    if (isThenable(result)) {
      // Keep the caller's rejection from surfacing as an unhandled one; the TypeError below is the report.
      Promise.resolve(result).catch(() => {})
      throw new TypeError("transaction() takes a synchronous function; the async one was rolled back.")
    }
  } catch (error) {
    steps.left()
    steps.rollback()
    throw error
  }
  steps.left()
  try {
    steps.commit()
  } catch (error) {
    steps.rollback()
    throw error
  }
  return result
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  )
}
