import { type ChildProcess, spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { hostname, tmpdir } from "node:os"
import { basename, join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { bareToolbelt } from "../../compose/fixtures/bare-toolbelt.ts"
import { currentProcess } from "./process-identity.ts"
import { sweepDeadTemps, tempName, tempWriter } from "./temp-files.ts"

const writer = join(import.meta.dirname, "fixtures", "tracked-writer.ts")
const dirs: string[] = []
const children: ChildProcess[] = []
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL")
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "toolbelt-temps-"))
  dirs.push(dir)
  return dir
}

const temps = (dir: string, of = "") =>
  readdirSync(dir).filter((name) => name.startsWith(`.${of}`) && name.endsWith(".tmp"))

/** Starts a writer of a big file, and stops it (SIGSTOP) at a moment its temp file exists. */
async function writerStoppedMidWrite(dataDir: string, target: string, dir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [writer, dataDir, target, "64"], { stdio: "ignore" })
  children.push(child)
  for (;;) {
    while (temps(dir, basename(target)).length === 0) {
      if (child.exitCode !== null) throw new Error(`the writer exited (${child.exitCode})`)
      await new Promise((resolve) => setImmediate(resolve))
    }
    child.kill("SIGSTOP")
    await new Promise((resolve) => setTimeout(resolve, 20))
    if (temps(dir, basename(target)).length > 0) return child
    child.kill("SIGCONT")
  }
}

async function kill(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.on("exit", resolve))
  child.kill("SIGKILL")
  await exited
}

async function start(project: string, dataDir: string) {
  const toolbelt = await bareToolbelt(project, dataDir)
  await toolbelt.close()
  return toolbelt.crashRecovery
}

describe("temp files of killed writes", () => {
  it("are named after their writer", () => {
    const name = tempName("/project/a.txt")
    expect(name).toMatch(/^\.a\.txt\.\d+-\d+-[0-9a-f]{12}\.tmp$/)
    const { pid, start } = currentProcess()
    expect(tempWriter(`/project/${name}`)).toEqual({ pid, start })
    expect(tempWriter("/project/.a.txt.0123456789ab.tmp")).toBeUndefined()
  })

  it("a writer SIGKILLed mid-write leaves its temp file; the next start removes it, and leaves a live writer's alone", async () => {
    const root = tempDir()
    const dataDir = join(root, "data")
    const project = join(root, "project")
    mkdirSync(project)
    const live = await writerStoppedMidWrite(dataDir, join(project, "live.bin"), project)
    const liveTemp = temps(project)
    const killed = await writerStoppedMidWrite(dataDir, join(project, "big.bin"), project)
    const killedTemp = temps(project).filter((name) => !liveTemp.includes(name))
    expect(killedTemp).toHaveLength(1)
    await kill(killed)
    expect(temps(project).sort()).toEqual([...liveTemp, ...killedTemp].sort())

    const report = await start(project, dataDir)

    expect(report.removedTemps).toEqual([join(project, killedTemp[0]!)])
    expect(temps(project)).toEqual(liveTemp)

    // Once the live writer is killed too, the next start removes its temp file as well.
    await kill(live)
    expect((await start(project, dataDir)).removedTemps).toEqual([join(project, liveTemp[0]!)])
    expect(temps(project)).toEqual([])
  }, 60_000)

  it("a list names only what it may remove: a path not carrying the dead writer's identity is left", async () => {
    const root = tempDir()
    const dataDir = join(root, "data")
    const victim = join(root, "important.txt")
    writeFileSync(victim, "keep me")
    const foreign = join(root, ".x.txt.1-1-0123456789ab.tmp")
    writeFileSync(foreign, "another writer's")
    const dead = { pid: 2 ** 22 + 1, start: "1" }
    const lists = join(dataDir, "temp-files", hostname())
    mkdirSync(lists, { recursive: true })
    writeFileSync(join(lists, `${dead.pid}-${dead.start}.list`), `${victim}\n${foreign}\n`)

    expect(await sweepDeadTemps(dataDir)).toEqual([])
    expect(readdirSync(root).sort()).toEqual([".x.txt.1-1-0123456789ab.tmp", "data", "important.txt"])
    expect(readdirSync(lists)).toEqual([])
  })
})
