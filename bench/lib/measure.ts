// Small measuring helpers the benchmarks share.
import { execFileSync } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"

/** The median (the mean of the two middle values for an even count); NaN for no values. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

/** Runs `command` `runs` times in one bash (no Node spawn cost counted) and returns each wall time in ms. */
export function timeCommand(command: string, runs: number): number[] {
  const script = `for i in $(seq ${runs}); do s=$EPOCHREALTIME; ${command} >/dev/null; e=$EPOCHREALTIME; echo "$s $e"; done`
  return execFileSync("bash", ["-c", script], { encoding: "utf8" })
    .trim()
    .split("\n")
    .map((line) => {
      const [s, e] = line.split(" ").map(Number)
      return (e! - s!) * 1000
    })
}

/**
 * On Linux, writing 5 to clear_refs resets the peak RSS, so `maxRSS` afterwards is the peak of what
 * follows. Returns whether that worked (elsewhere the peak covers the whole run).
 */
export function resetPeakRss(): boolean {
  try {
    writeFileSync("/proc/self/clear_refs", "5")
    return readFileSync("/proc/self/status", "utf8").includes("VmHWM")
  } catch {
    return false
  }
}
