import { type ChildProcess, spawn } from "node:child_process"
import { afterEach, describe, expect, it } from "vitest"
import { until } from "./fixtures/until.ts"
import { HAS_PROC, killTree, ProcessTree } from "./tree.ts"

const children: ChildProcess[] = []
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL")
})

/** A process with no command line for `blankMs` (as one caught mid-exec has), then named `name`. */
function blankThenNamed(name: string, blankMs: number): ChildProcess {
  const script = `$0 = ""; select(undef, undef, undef, ${blankMs / 1000}); $0 = "${name}"; sleep 1000`
  const child = spawn("perl", ["-e", script], { detached: true, stdio: "ignore" })
  children.push(child)
  return child
}

describe.skipIf(!HAS_PROC)("ProcessTree", () => {
  it("does not keep a short name for a process whose command line could not be read yet", async () => {
    const name = `named-${process.pid}-${Date.now()}`
    const child = blankThenNamed(name, 300)
    const tree = new ProcessTree({ root: child.pid ?? 0, marker: "unused" })
    expect(await until(() => tree.alive().some((info) => !info.named), 5000)).toBe(true)
    expect(await until(() => tree.alive().some((info) => info.named && info.command === name), 5000)).toBe(
      true,
    )
  })

  it("names in its kill report what a process runs, not what it showed mid-exec", async () => {
    const name = `named-${process.pid}-${Date.now()}`
    const child = blankThenNamed(name, 300)
    const tree = new ProcessTree({ root: child.pid ?? 0, marker: "unused" })
    expect(await until(() => tree.alive().some((info) => !info.named), 5000)).toBe(true)
    // One poll is the look it waits for before signalling: long enough here for the name to appear.
    const report = await killTree(tree, { graceMs: 500, pollMs: 1500 })
    expect(report.killed.map((info) => info.command)).toEqual([name])
    expect(report.survivors).toEqual([])
  })
})
