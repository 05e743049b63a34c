// The memory of a server process the tests started, read from /proc (Linux only).
import { readdir, readFile } from "node:fs/promises"

export const MiB = 1024 * 1024

/**
 * VmRSS and VmHWM of a live process and its descendants, summed, in bytes: the launcher may hand over
 * to a Node of its own, which is then the server.
 */
export async function memoryOf(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "")
  const kib = (name: string) =>
    Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0) * 1024
  const total = { rss: kib("VmRSS"), peak: kib("VmHWM") }
  const tasks = await readdir(`/proc/${pid}/task`).catch(() => [] as string[])
  for (const task of tasks) {
    const children = await readFile(`/proc/${pid}/task/${task}/children`, "utf8").catch(() => "")
    for (const child of children.split(" ").filter(Boolean)) {
      const below = await memoryOf(Number(child))
      total.rss += below.rss
      total.peak += below.peak
    }
  }
  return total
}

/** Waits until `sample` gives the same value `times` samples in a row (the process settled). */
export async function settled(sample: () => Promise<number>, times = 5, everyMs = 300): Promise<void> {
  let last = Number.NaN
  let same = 0
  while (same < times) {
    await new Promise((resolve) => setTimeout(resolve, everyMs))
    const now = await sample()
    same = now === last ? same + 1 : 0
    last = now
  }
}
