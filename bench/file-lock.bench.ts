// What the cross-process file lock adds to one edit: the edit tool end to end (settlement, lock, read,
// ledger check, match, diff, atomic write with fsync, ledger stamp) on a 2,000-line file, with the
// cross-process lock on and off in alternate rounds of the same run, and the lock alone (take and release
// around nothing) both ways. Medians in ms; the goal is < 1 ms added. Run: node bench/file-lock.bench.ts
import { writeFile } from "node:fs/promises"
import { pathToFileURL } from "node:url"
import { configureFileLocks, withFileLock } from "../src/platform/fs/lock.ts"
import { EditTool } from "../src/tools/edit/edit.ts"
import { createHarness } from "../src/tools/kit/fixtures/harness.ts"
import { generateFile } from "./edit.bench.ts"

const LINES = 2_000
const EDIT_ROUNDS = 200
const LOCK_ROUNDS = 2_000

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

/** Runs `call` `rounds` times with the lock on and `rounds` times off, alternating; medians of each. */
async function alternate(rounds: number, call: (round: number) => Promise<void>): Promise<[number, number]> {
  const on: number[] = []
  const off: number[] = []
  const before = configureFileLocks({})
  try {
    for (let i = 0; i < rounds * 2 + 4; i++) {
      // On, off, off, on, ...: each mode gets every other kind of round (an edit and its undo).
      const crossProcess = i % 4 === 0 || i % 4 === 3
      configureFileLocks({ crossProcess })
      const start = process.hrtime.bigint()
      await call(i)
      const ms = Number(process.hrtime.bigint() - start) / 1e6
      // The first rounds warm up the JIT and the caches.
      if (i >= 4) (crossProcess ? on : off).push(ms)
    }
  } finally {
    configureFileLocks(before)
  }
  return [median(on), median(off)]
}

export async function run(): Promise<Record<string, number>> {
  const h = await createHarness({ edit: EditTool })
  try {
    const lines = generateFile(LINES)
    await writeFile(h.path("file.ts"), `${lines.join("\n")}\n`)
    const at = lines.findLastIndex(
      (line, i) => line.startsWith("\t\tif (!options.force") && i + 5 < lines.length,
    )
    const before = lines.slice(at, at + 5).join("\n")
    const after = before.replace("this.cache.get(id)!", "this.cache.get(id) ?? 0")
    // Even rounds apply, odd rounds undo: every call is a real edit of the same size.
    const [editOn, editOff] = await alternate(EDIT_ROUNDS, async (round) => {
      const apply = round % 2 === 0
      const result = await h.call("edit", {
        filePath: "file.ts",
        oldString: apply ? before : after,
        newString: apply ? after : before,
      })
      if (result.status !== "completed") throw new Error(`edit failed: ${result.error}`)
    })
    const [lockOn, lockOff] = await alternate(LOCK_ROUNDS, () => withFileLock(h.path("file.ts"), () => {}))
    return {
      lines: LINES,
      edit_with_lock_ms: editOn,
      edit_without_lock_ms: editOff,
      edit_added_ms: editOn - editOff,
      lock_alone_with_ms: lockOn,
      lock_alone_without_ms: lockOff,
      lock_alone_added_ms: lockOn - lockOff,
    }
  } finally {
    await h.close()
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  for (const [key, value] of Object.entries(await run()))
    console.log(`${key.padEnd(28)} ${Number.isInteger(value) ? value : value.toFixed(3)}`)
}
