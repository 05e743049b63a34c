/**
 * Survivors: runs commands that start daemons escaping the session, the group and the environment
 * (setsid, env -i, double forks, closed fds) and ends each call by a normal exit, a timeout or an abort,
 * then counts the daemons still alive. Goal: 0.
 *
 *   npx node bench/shell-survivors.ts [cycles=1000]      (TOOLBELT_REAPER=0 to see the scan-only fallback)
 *
 * 1. For each cycle pick a daemon shape and an ending (round robin), with a unique `sleep 1000.<n>`.
 * 2. Run it through RunningCommand as the bash tool does, end it, and wait for the result.
 * 3. Look for that sleep in /proc, as `ps` would; count it when it is still alive a second later.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { findByCommandLine } from "../src/platform/shell/run/find-processes.ts"
import { runOptions } from "../src/platform/shell/run/fixtures/run-options.ts"
import { RunningCommand } from "../src/platform/shell/run/index.ts"
import { containment } from "../src/platform/shell/run/reaper.ts"

const cycles = Number(process.argv[2] ?? 1000)
const dir = mkdtempSync(join(tmpdir(), "toolbelt-survivors-"))
const DAEMONS = [
  (t: string) => `setsid -f env -i sleep ${t}`,
  (t: string) => `(setsid env -i sh -c 'sleep ${t} &' &)`,
  (t: string) => `nohup setsid env -i sleep ${t} >/dev/null 2>&1 &`,
  (t: string) => `setsid env -i sh -c '(sh -c "sleep ${t} &" &) &' &`,
  (t: string) => `setsid -f env -i sh -c 'exec 0<&- 1>&- 2>&-; exec sleep ${t}'`,
]
const ENDS = ["exit", "timeout", "abort"] as const

const alive = findByCommandLine
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
console.log(`containment: ${containment().detail}`)
let survivors = 0
const pending: string[] = []
const started = Date.now()
for (let i = 0; i < cycles; i++) {
  const token = `1000.${process.pid}${i}`
  const end = ENDS[i % ENDS.length]!
  const daemon = DAEMONS[Math.floor(i / ENDS.length) % DAEMONS.length]!
  const controller = new AbortController()
  const command = new RunningCommand({
    ...runOptions(dir, `${daemon(token)}\necho started${end === "exit" ? "" : "; sleep 30"}`),
    killGraceMs: 100,
    ...(end === "timeout" ? { timeoutMs: 250 } : {}),
    signal: controller.signal,
  })
  if (end === "abort") {
    while (!command.capture.tail().includes("started") && command.running) await sleep(5)
    controller.abort()
  }
  await command.done
  pending.push(token)
  // Checked a little later, so a kill still on its way is not counted as a survivor.
  while (pending.length > 20) {
    const token = pending.shift()!
    const left = alive(token)
    if (left.length) {
      survivors++
      for (const pid of left) process.kill(pid, "SIGKILL")
    }
  }
  if ((i + 1) % 100 === 0) console.log(`${i + 1} cycles, ${survivors} survivors`)
}
await sleep(1000)
for (const token of pending) {
  const left = alive(token)
  if (left.length) {
    survivors++
    for (const pid of left) process.kill(pid, "SIGKILL")
  }
}
rmSync(dir, { recursive: true, force: true })
console.log(`${cycles} cycles in ${((Date.now() - started) / 1000).toFixed(1)} s: ${survivors} survivors`)
process.exitCode = survivors === 0 ? 0 : 1
