import { readdirSync, readFileSync } from "node:fs"

/**
 * Live processes (not zombies) whose command line contains `text`, found the way `ps` finds them: by
 * reading /proc, so whatever a process did to its session, group or environment, it is seen. Linux only;
 * for the daemon tests and the survivors bench, which look for a `sleep` with a unique argument.
 */
export function findByCommandLine(text: string): number[] {
  const out: number[] = []
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue
    try {
      if (!readFileSync(`/proc/${name}/cmdline`, "latin1").includes(text)) continue
      const stat = readFileSync(`/proc/${name}/stat`, "latin1")
      if (!/^[ZX]/.test(stat.slice(stat.lastIndexOf(")") + 2))) out.push(Number(name))
    } catch {
      // Gone between the listing and the read.
    }
  }
  return out
}
