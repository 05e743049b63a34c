// Start-up of the command line, as ratios against `node -e 0` on the same Node in the same run: the CLI
// is started once per call by scripts and agents, so its start-up is its speed.
// Goals (issue 31): `call read` and `tools` within 2.5x, `mcp` answering `initialize` within 4x, from the
// build; started where the `node` on PATH is older than toolbelt needs, within 1.3x of a direct start.
// Run: node bench/startup.bench.ts (or npm run bench startup)
//
// 1. Build dist/ (scripts/build.js), as `npm install` does; if that fails, say so and measure the
//    bundle of an earlier build if there is one, else the sources only.
// 2. A temp project with a 3-byte file, a temp HOME and data dir (nothing of the developer's config).
// 3. Take turns, ROUNDS times: `node -e 0`; `toolbelt call read FILE` and `toolbelt tools` to their exit;
//    `toolbelt mcp` until it answers an `initialize` request on stdout (then it is killed). Each runs
//    from the build (TOOLBELT_RUN=build, what an installed package runs), from the build as a clone
//    runs it (no TOOLBELT_RUN: the walk of src/ that finds the build current comes first), and from the
//    sources (TOOLBELT_RUN=source, what a clone runs right after an edit), all with this Node.
//    The older-Node hand-over, from the build, when this machine has a Node without node:sqlite (else
//    Node 24 with --no-experimental-sqlite stands in): `bin/toolbelt.js call read` run as a program with
//    that Node first on PATH (what an npm bin link or an MCP client's "command" does: /bin/sh picks the
//    pinned Node), and `<older node> bin/toolbelt.js call read` (the JavaScript hand-over).
// 4. Report the median wall time of each, and its ratio to the median of `node -e 0`; the hand-overs also
//    as a ratio to the direct `call read (build)`.
import { execFileSync, spawn, spawnSync } from "node:child_process"
import { existsSync, realpathSync } from "node:fs"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { delimiter, dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { median } from "./lib/measure.ts"

const ROOT = fileURLToPath(new URL("..", import.meta.url))
const BIN = join(ROOT, "bin", "toolbelt.js")
const ROUNDS = 15
const GOALS: Record<string, number> = {
  "call read": 2.5,
  tools: 2.5,
  "mcp initialize": 4,
  "older Node, as a program vs direct": 1.3,
}

interface Case {
  readonly name: string
  /** The program to start (default: this Node). */
  readonly command?: string
  readonly args: readonly string[]
  /** Resolves the run as done once stdout holds this (the process is then killed); else at exit. */
  readonly until?: string
  readonly stdin?: string
}

const INITIALIZE = `${JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "0" } },
})}\n`

export async function run(): Promise<Record<string, number>> {
  const built = build()
  const home = await mkdtemp(join(tmpdir(), "toolbelt-bench-startup-"))
  try {
    const file = join(home, "three.txt")
    await writeFile(file, "abc")
    const env = { PATH: process.env.PATH, HOME: home, TOOLBELT_DATA_DIR: join(home, "data") }
    const cli: Case[] = [
      { name: "call read", args: [BIN, "call", "read", JSON.stringify({ filePath: file }), "--cwd", home] },
      { name: "tools", args: [BIN, "tools", "--cwd", home] },
      { name: "mcp initialize", args: [BIN, "mcp", "--cwd", home], until: '"id":1', stdin: INITIALIZE },
    ]
    // "clone": no TOOLBELT_RUN, so bin/toolbelt.js first checks that no source changed since the build.
    const modes = built ? ["build", "clone", "source"] : ["source"]
    const older = olderNode()
    const readArgs = cli[0]!.args.slice(1)
    const handOvers: Case[] = built
      ? [
          { name: "older Node, as a program", command: BIN, args: readArgs },
          {
            name: "older Node, node bin/toolbelt.js",
            command: older.node,
            args: [...older.flags, BIN, ...readArgs],
          },
        ]
      : []
    const olderEnv = { ...env, TOOLBELT_RUN: "build", PATH: `${dirname(older.node)}${delimiter}${env.PATH}` }
    const times = new Map<string, number[]>()
    const add = (key: string, ms: number) => times.set(key, [...(times.get(key) ?? []), ms])
    for (let round = 0; round <= ROUNDS; round++) {
      // Round 0 warms the disk cache and Node's compile cache; it is not counted.
      const count = round > 0
      const node = await time({ name: "node", args: ["-e", "0"] }, env)
      if (count) add("node -e 0", node)
      for (const mode of modes)
        for (const c of cli) {
          const ms = await time(c, mode === "clone" ? env : { ...env, TOOLBELT_RUN: mode })
          if (count) add(`${c.name} (${mode})`, ms)
        }
      for (const c of handOvers) {
        const ms = await time(c, olderEnv)
        if (count) add(c.name, ms)
      }
    }
    const base = median(times.get("node -e 0")!)
    const results: Record<string, number> = { "node -e 0 ms": base }
    for (const [key, values] of times) {
      if (key === "node -e 0") continue
      results[`${key} ms`] = median(values)
      results[`${key} ratio`] = median(values) / base
    }
    const direct = times.get("call read (build)")
    for (const c of handOvers)
      if (direct) results[`${c.name} vs direct ratio`] = median(times.get(c.name)!) / median(direct)
    console.log(`  older Node: ${older.name}`)
    return results
  } finally {
    await rm(home, { recursive: true, force: true })
  }
}

export function report(results: Record<string, number>): void {
  for (const [key, value] of Object.entries(results)) {
    // The goals are the build's (what an installed package and a current clone run) and the hand-over's.
    const goal =
      key.endsWith(" ratio") && !key.includes("(source)")
        ? GOALS[key.replace(/ \((build|clone)\) ratio$/, "").replace(/ ratio$/, "")]
        : undefined
    const verdict =
      goal === undefined ? "" : value <= goal ? `  (goal <= ${goal}x: met)` : `  (goal <= ${goal}x: missed)`
    console.log(`  ${key.padEnd(48)} ${value.toFixed(key.endsWith("ratio") ? 2 : 1)}${verdict}`)
  }
}

/**
 * A Node that cannot run toolbelt itself: the first `node` on PATH without node:sqlite (Node 20 on many
 * machines), else this Node with node:sqlite turned off, which hands over the same way.
 */
function olderNode(): { name: string; node: string; flags: string[] } {
  const seen = new Set<string>()
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const node = join(dir, "node")
    if (!dir || !existsSync(node) || seen.has(realpathSync(node))) continue
    seen.add(realpathSync(node))
    const probe = spawnSync(
      node,
      ["-p", 'process.version + " " + typeof process.getBuiltinModule?.("node:sqlite")'],
      {
        encoding: "utf8",
      },
    )
    const [version, sqlite] = probe.stdout.trim().split(" ")
    if (probe.status === 0 && sqlite !== "object")
      return { name: `Node ${version} (${node})`, node, flags: [] }
  }
  return {
    name: `Node ${process.version} --no-experimental-sqlite`,
    node: process.execPath,
    flags: ["--no-experimental-sqlite"],
  }
}

/** Builds dist/; false when there is no bundle to measure. A failed build is reported on stderr. */
function build(): boolean {
  try {
    execFileSync(process.execPath, [join(ROOT, "scripts", "build.js")], { cwd: ROOT, stdio: "pipe" })
    return true
  } catch (error) {
    const output = String((error as { stdout?: Buffer }).stdout ?? "").slice(0, 2000)
    const bundle = existsSync(join(ROOT, "dist", "cli.bundle.cjs"))
    console.error(
      `  the build failed${bundle ? "; measuring the bundle dist/ holds from an earlier build" : ", so only the sources are measured"}:\n${output}`,
    )
    return bundle
  }
}

/** Wall time of one run in ms: from spawn to exit, or to the first stdout holding `c.until`. */
function time(c: Case, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now()
    const child = spawn(c.command ?? process.execPath, c.args, { env, stdio: ["pipe", "pipe", "inherit"] })
    let out = ""
    let done = false
    const finish = (ok: boolean) => {
      if (done) return
      done = true
      const ms = performance.now() - start
      if (c.until) child.kill("SIGKILL")
      if (ok) resolve(ms)
      else reject(new Error(`${c.name} failed: ${out.slice(0, 500)}`))
    }
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk
      if (c.until && out.includes(c.until)) finish(true)
    })
    child.on("exit", (code) => finish(!c.until && code === 0))
    // A server keeps its stdin open, as a client does: end of input is a request to stop.
    if (c.until) child.stdin.write(c.stdin ?? "")
    else child.stdin.end(c.stdin ?? "")
  })
}

if (import.meta.main) report(await run())
