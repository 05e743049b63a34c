/**
 * Journal throughput: calls/s, where one call is requested → started → finished, each step awaited in
 * order and each writing the part row and a journal entry in one transaction, on a real file in the
 * temp dir. Also the raw rate of one-row write transactions: what SQLite's commit costs by itself.
 *
 * Durability: the store's default is `synchronous=NORMAL` in WAL mode: a step whose promise has
 * resolved survives the death of the process (SIGKILL, OOM, crash); see `Synchronous` in
 * src/store/sqlite.ts. `FULL` (an fsync per commit, survives a power cut too) is measured for comparison.
 *
 * "N in flight": N calls run at once (a server with several sessions, an agent step's parallel tool
 * calls), each in its own session, the worst case for page locality. Their steps are group-committed
 * (src/store/group-commit.ts): steps issued in one turn of the event loop share a commit, and each
 * step's promise still resolves only after its commit. With 1 in flight every step is its own commit:
 * 3 commits per call.
 *
 * Each figure is the best of `repeats` runs: the machine is shared, and the best run is the one least
 * disturbed by other processes.
 *
 * Run: `node bench/journal.bench.ts` (prints the figures), or import `run()`.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import type { ToolPart } from "../src/platform/store/part.ts"
import { openDatabase, type Synchronous } from "../src/platform/store/sqlite.ts"
import { openStore } from "../src/platform/store/store.ts"

export interface JournalBenchOptions {
  /** Calls per measurement (FULL runs fewer). Default 5000. */
  readonly calls?: number
  /** Runs per figure; the best is reported. Default 3. */
  readonly repeats?: number
}

export async function run(options: JournalBenchOptions = {}): Promise<Record<string, number>> {
  const calls = options.calls ?? 5000
  const repeats = options.repeats ?? 3
  const dir = mkdtempSync(join(tmpdir(), "toolbelt-bench-journal-"))
  let files = 0
  const file = () => join(dir, `${files++}.db`)
  const best = async (measure: () => number | Promise<number>) => {
    let rate = 0
    for (let i = 0; i < repeats; i++) rate = Math.max(rate, await measure())
    return Math.round(rate)
  }
  try {
    const fewer = Math.max(200, Math.round(calls * 0.3))
    return {
      "journal calls/s, 1 in flight (synchronous=NORMAL, default)": await best(() =>
        journalCalls(file(), "NORMAL", calls, 1),
      ),
      "journal calls/s, 16 in flight (synchronous=NORMAL, default)": await best(() =>
        journalCalls(file(), "NORMAL", calls, 16),
      ),
      "journal calls/s, 64 in flight (synchronous=NORMAL, default)": await best(() =>
        journalCalls(file(), "NORMAL", calls, 64),
      ),
      "journal calls/s, 1 in flight (synchronous=FULL)": await best(() =>
        journalCalls(file(), "FULL", fewer, 1),
      ),
      "journal calls/s, 16 in flight (synchronous=FULL)": await best(() =>
        journalCalls(file(), "FULL", calls, 16),
      ),
      "raw 1-row transactions/s (synchronous=NORMAL)": await best(() =>
        rawTransactions(file(), "NORMAL", calls * 3),
      ),
      "raw 1-row transactions/s (synchronous=FULL)": await best(() => rawTransactions(file(), "FULL", fewer)),
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Journalled calls per second with `concurrency` calls in flight, each in its own session. */
async function journalCalls(
  path: string,
  synchronous: Synchronous,
  calls: number,
  concurrency: number,
): Promise<number> {
  const store = openStore({ path, synchronous })
  try {
    const call = async (i: number) => {
      const pending: ToolPart = {
        id: `prt_${String(i + 1_000_000).padStart(8, "0")}`,
        sessionID: `ses_bench_${i % concurrency}`,
        messageID: "msg_bench",
        type: "tool",
        callID: `call_${i}`,
        tool: "read",
        state: { status: "pending", input: {}, raw: "" },
      }
      const input = { filePath: `/project/src/file-${i}.ts`, offset: 1, limit: 2000 }
      const start = Date.now()
      const requested = await store.journal.requested(pending)
      const started = await store.journal.started({
        ...requested,
        state: { status: "running", input, time: { start } },
      })
      await store.journal.finished({
        ...started,
        state: {
          status: "completed",
          input,
          output: "1: export const x = 1\n".repeat(20),
          title: `src/file-${i}.ts`,
          metadata: { lines: 20, truncated: false },
          time: { start, end: Date.now() },
        },
      })
    }
    const drive = async (from: number, count: number) => {
      let next = from
      const worker = async () => {
        while (next < from + count) await call(next++)
      }
      await Promise.all(Array.from({ length: concurrency }, worker))
    }
    await drive(-1000, 200) // warm-up: statement caches, WAL file growth
    const t0 = performance.now()
    await drive(0, calls)
    return calls / ((performance.now() - t0) / 1000)
  } finally {
    store.close()
  }
}

/** Raw commits per second: BEGIN IMMEDIATE, one small insert, COMMIT. */
function rawTransactions(path: string, synchronous: Synchronous, count: number): number {
  const db = openDatabase(path, { synchronous })
  try {
    db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, data TEXT NOT NULL)")
    const insert = db.prepare("INSERT INTO t (data) VALUES (?)")
    const data = JSON.stringify({ status: "running", input: { filePath: "/project/src/file.ts" } })
    for (let i = 0; i < 200; i++) db.transaction(() => insert.run(data))
    const t0 = performance.now()
    for (let i = 0; i < count; i++) db.transaction(() => insert.run(data))
    return count / ((performance.now() - t0) / 1000)
  } finally {
    db.close()
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const results = await run()
  for (const [name, value] of Object.entries(results)) console.log(`${name.padEnd(62)} ${value}`)
}
