// The background checkpointer's thread (checkpointer.ts): its own connection to the store, a PASSIVE
// checkpoint shortly after commits, and nothing while none come.
import { setTimeout as sleep } from "node:timers/promises"
import { workerData } from "node:worker_threads"
import { type CheckpointWorkerData, COMMITS, STOP } from "./checkpointer.ts"
import { type Database, openDatabase } from "./sqlite.ts"

const { path, state, intervalMs } = workerData as CheckpointWorkerData
const shared = new Int32Array(state)

async function checkpointWhileCommitting(db: Database): Promise<void> {
  const checkpoint = db.prepare("PRAGMA wal_checkpoint(PASSIVE)")
  let seen = 0
  while (Atomics.load(shared, STOP) === 0) {
    const wait = Atomics.waitAsync(shared, COMMITS, seen)
    if (wait.async) await wait.value
    // Let a burst of commits gather: one checkpoint (two fsyncs) covers all of them.
    await sleep(intervalMs)
    if (Atomics.load(shared, STOP) !== 0) break
    seen = Atomics.load(shared, COMMITS)
    try {
      checkpoint.get()
    } catch {
      // Busy or locked (another process checkpoints): the next round, or the writer's own
      // autocheckpoint, copies these frames.
    }
  }
}

// A pending Atomics.waitAsync does not keep a thread's event loop alive: this timer does, until stop.
// (The parent unrefs this worker, so it never keeps the process alive.)
const alive = setInterval(() => {}, 2 ** 30)

async function main(): Promise<void> {
  let db: Database | undefined
  try {
    db = openDatabase(path, { busyTimeout: 0, backgroundCheckpoints: false })
    await checkpointWhileCommitting(db)
  } catch {
    // The writer's own autocheckpoint keeps the WAL bounded without this thread.
  } finally {
    db?.close()
    clearInterval(alive)
  }
}

// Not a top-level await: the process may end this thread at any moment, and that is fine.
void main()
