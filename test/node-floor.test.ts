// The Node floor as users meet it. toolbelt needs node:sqlite, unflagged from Node 22.13: a Node that
// lacks it gets the command run on the clone's pinned Node 24 (bin/toolbelt.js hands over), or one line
// saying which Node to use; the library says the same in one line; and no ExperimentalWarning (Node 22
// prints one for node:sqlite) reaches the user.
//
// The Nodes tried: every `node` on PATH (Node 20 at /usr/bin/node on the CI machine) and those listed in
// TOOLBELT_TEST_NODES (colon-separated, e.g. `npm i node@22.12.0` in a temp dir: its
// node_modules/.bin/node). Node 24 started with --no-experimental-sqlite stands in for 22.12 wherever
// no such Node is installed: it has everything toolbelt needs but node:sqlite.
import { spawnSync } from "node:child_process"
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs"
import { tmpdir } from "node:os"
import { delimiter, join, resolve } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { buildIsCurrent } from "./fixtures/build-current.ts"
import { BIN, cliEnv } from "./fixtures/cli.ts"

const ROOT = resolve(import.meta.dirname, "..")
const WITHOUT_SQLITE = "--no-experimental-sqlite"

interface FoundNode {
  readonly path: string
  readonly version: string
  /** Whether it loads node:sqlite (without it, toolbelt cannot run on it). */
  readonly sqlite: boolean
  /** Whether it strips types by default (runs the TypeScript sources). */
  readonly strips: boolean
}

/** The Nodes on PATH and in TOOLBELT_TEST_NODES, one per binary, the tests' own Node left out. */
function findNodes(): FoundNode[] {
  const candidates = [
    ...(process.env.PATH ?? "").split(delimiter).map((dir) => join(dir, "node")),
    ...(process.env.TOOLBELT_TEST_NODES ?? "").split(delimiter),
  ]
  const seen = new Set([realpathSync(process.execPath)])
  const found: FoundNode[] = []
  for (const path of candidates) {
    if (!path || !existsSync(path)) continue
    const real = realpathSync(path)
    if (seen.has(real)) continue
    seen.add(real)
    const probe = spawnSync(
      path,
      [
        "-p",
        'JSON.stringify({ version: process.version, sqlite: typeof process.getBuiltinModule?.("node:sqlite") === "object", strips: Boolean(process.features.typescript) })',
      ],
      { encoding: "utf8", env: { PATH: process.env.PATH }, timeout: 30_000 },
    )
    if (probe.status !== 0) continue
    found.push({ path, ...(JSON.parse(probe.stdout) as Omit<FoundNode, "path">) })
  }
  return found
}

const nodes = findNodes()
const tooOld = nodes.filter((node) => !node.sqlite)
const supported = nodes.filter((node) => node.sqlite)

/** A way to start a Node: its path, and flags before the script. */
interface Runner {
  readonly name: string
  readonly node: string
  readonly flags: readonly string[]
}

const standIn: Runner = {
  name: `Node ${process.version} ${WITHOUT_SQLITE}`,
  node: process.execPath,
  flags: [WITHOUT_SQLITE],
}
const oldRunners: Runner[] = [
  ...tooOld.map((node) => ({ name: `Node ${node.version} (${node.path})`, node: node.path, flags: [] })),
  standIn,
]

let dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  dirs = []
})

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  dirs.push(dir)
  return dir
}

/** A project with one file, and a home for the config and the data dir. */
function project(): { cwd: string; home: string } {
  const base = tempDir("toolbelt-floor-")
  const cwd = join(base, "project")
  const home = join(base, "home")
  mkdirSync(cwd)
  mkdirSync(home)
  writeFileSync(join(cwd, "a.txt"), "hello from the floor\n")
  return { cwd, home }
}

function run(
  runner: Runner,
  script: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
) {
  return spawnSync(runner.node, [...runner.flags, script, ...args], {
    cwd: options.cwd,
    env: options.env,
    input: "",
    encoding: "utf8",
    timeout: 60_000,
    killSignal: "SIGKILL",
  })
}

/**
 * A package laid out like a clone: bin/toolbelt.js (the real one) and a finished build whose entry prints
 * whether node:sqlite loads in the process that runs it. No pinned Node unless `pinned` is given: the
 * file to put where npm puts the pinned Node's binary.
 */
function layout(pinned?: { link: string } | { file: string }): string {
  const root = join(tempDir("toolbelt-floor-bin-"), "toolbelt")
  for (const dir of ["bin", "src/surfaces/cli", "dist"]) mkdirSync(join(root, dir), { recursive: true })
  writeFileSync(join(root, "bin", "toolbelt.js"), readFileSync(BIN))
  writeFileSync(join(root, "package.json"), '{"type":"module"}')
  const entry = 'console.log(typeof process.getBuiltinModule("node:sqlite"))\n'
  writeFileSync(join(root, "src", "surfaces", "cli", "bin.ts"), entry)
  writeFileSync(join(root, "dist", "cli.bundle.cjs"), entry)
  // Started after every file above was written: the build is current.
  writeFileSync(join(root, "dist", "build-stamp.json"), JSON.stringify({ started: Date.now() + 60_000 }))
  if (pinned) {
    const pkg = join(root, "node_modules", "node")
    mkdirSync(join(pkg, "bin"), { recursive: true })
    writeFileSync(join(pkg, "package.json"), '{"name":"node","version":"24.0.0"}')
    if ("link" in pinned) symlinkSync(pinned.link, join(pkg, "bin", "node"))
    else {
      writeFileSync(join(pkg, "bin", "node"), pinned.file)
      chmodSync(join(pkg, "bin", "node"), 0o644)
    }
  }
  return root
}

/** What a refusal must be: exit 2, nothing on stdout, one line on stderr and no stack. */
function expectOneLine(result: { status: number | null; stdout: string; stderr: string }): string {
  expect(result.stdout).toBe("")
  expect(result.stderr).toMatch(/^[^\n]+\n$/)
  expect(result.stderr).not.toMatch(/^\s+at /m)
  expect(result.status).toBe(2)
  return result.stderr
}

describe("a Node that cannot run toolbelt", () => {
  it.each(oldRunners)(
    "$name: call read works in a clone, through the hand-over to the pinned Node",
    (runner) => {
      const { cwd, home } = project()
      const result = run(runner, BIN, ["call", "read", '{"filePath":"a.txt"}'], { cwd, env: cliEnv(home) })
      expect(result.stderr).toBe("")
      expect(result.stdout).toContain("1: hello from the floor")
      expect(result.status).toBe(0)
    },
  )

  it.each(oldRunners)("$name: without a pinned Node, one line names the Node to use", (runner) => {
    const root = layout()
    const line = expectOneLine(
      run(runner, join(root, "bin", "toolbelt.js"), [], { cwd: root, env: { PATH: process.env.PATH } }),
    )
    if (runner === standIn) expect(line).toContain(`remove ${WITHOUT_SQLITE}`)
    else {
      expect(line).toContain("toolbelt needs Node 22.13 or newer")
      expect(line).toContain(`npm install in ${root}`)
    }
  })

  it("hands over to the pinned Node even when the build is current (22.12 has everything but node:sqlite)", () => {
    const root = layout({ link: process.execPath })
    const result = run(standIn, join(root, "bin", "toolbelt.js"), [], {
      cwd: root,
      env: { PATH: process.env.PATH },
    })
    expect(result.stderr).toBe("")
    expect(result.stdout.trim()).toBe("object")
  })

  it("a pinned Node that cannot start: one line, no stack", () => {
    const root = layout({ file: "not a program\n" })
    const line = expectOneLine(
      run(standIn, join(root, "bin", "toolbelt.js"), [], { cwd: root, env: { PATH: process.env.PATH } }),
    )
    expect(line).toContain("could not start the Node it pins")
  })

  it("a pinned Node that cannot run it either (a flag in NODE_OPTIONS): one line, no second hand-over", () => {
    const root = layout({ link: process.execPath })
    const env = { PATH: process.env.PATH, NODE_OPTIONS: WITHOUT_SQLITE }
    const line = expectOneLine(
      run({ ...standIn, flags: [] }, join(root, "bin", "toolbelt.js"), [], { cwd: root, env }),
    )
    expect(line).toContain("cannot run it either")
    expect(line).toContain(`remove ${WITHOUT_SQLITE} from its flags and from NODE_OPTIONS`)
  })
})

describe("no ExperimentalWarning reaches the user", () => {
  it("the launcher drops that kind of warning, and only that kind", () => {
    const root = layout()
    writeFileSync(
      join(root, "dist", "cli.bundle.cjs"),
      [
        'process.emitWarning("Something is an experimental feature", "ExperimentalWarning")',
        'process.emitWarning("Another is experimental", { type: "ExperimentalWarning" })',
        'process.emitWarning(Object.assign(new Error("A third one"), { name: "ExperimentalWarning" }))',
        'process.emitWarning("this one still shows")',
        'process.emitWarning("and this", "DeprecationWarning", "DEP0")',
        'console.log("ran")',
      ].join("\n"),
    )
    const result = run(
      { name: "this Node", node: process.execPath, flags: [] },
      join(root, "bin", "toolbelt.js"),
      [],
      {
        cwd: root,
        env: { PATH: process.env.PATH },
      },
    )
    expect(result.stdout.trim()).toBe("ran")
    expect(result.stderr).not.toContain("ExperimentalWarning")
    expect(result.stderr).not.toContain("experimental")
    expect(result.stderr).toContain("Warning: this one still shows")
    expect(result.stderr).toContain("DeprecationWarning: and this")
  })

  const callers: Runner[] = [
    { name: `Node ${process.version}`, node: process.execPath, flags: [] },
    ...supported.map((node) => ({ name: `Node ${node.version} (${node.path})`, node: node.path, flags: [] })),
  ]
  // A stale build is still a build that opens the store: forcing it tests what the launcher lets through.
  const bundled = existsSync(join(ROOT, "dist", "cli.bundle.cjs"))
  for (const mode of bundled ? (["build", "source"] as const) : (["source"] as const)) {
    it.each(callers)(`$name, TOOLBELT_RUN=${mode}: a normal call prints nothing on stderr`, (runner) => {
      const { cwd, home } = project()
      const result = run(runner, BIN, ["call", "read", '{"filePath":"a.txt"}'], {
        cwd,
        env: cliEnv(home, { TOOLBELT_RUN: mode }),
      })
      expect(result.stderr).toBe("")
      expect(result.stdout).toContain("1: hello from the floor")
    })
  }

  it.each(supported.filter((node) => node.strips))(
    "the library on Node $version opens a toolbelt without a warning",
    (node) => {
      const { cwd, home } = project()
      const script =
        'const { createToolbelt } = await import("agent-toolbelt"); const tb = await createToolbelt({ directory: process.argv[1] }); await tb.close(); console.log("opened")'
      const result = spawnSync(node.path, ["--conditions=source", "--input-type=module", "-e", script, cwd], {
        cwd: ROOT,
        env: cliEnv(home),
        encoding: "utf8",
        timeout: 60_000,
      })
      expect(result.stderr).toBe("")
      expect(result.stdout.trim()).toBe("opened")
    },
  )
})

describe("the library on a Node without node:sqlite", () => {
  const importing =
    'try { await import("agent-toolbelt"); console.log("loaded") } catch (error) { console.log(JSON.stringify({ message: error.message, code: error.code })) }'

  function expectTheLine(result: { stdout: string; stderr: string }): string {
    expect(result.stderr).toBe("")
    const thrown = JSON.parse(result.stdout) as { message: string; code?: string }
    expect(thrown.code).not.toBe("ERR_UNKNOWN_BUILTIN_MODULE")
    expect(thrown.message).not.toContain("\n")
    expect(thrown.message).toMatch(/^agent-toolbelt needs /)
    return thrown.message
  }

  it("throws one line naming what it needs (Node 24 without node:sqlite, the sources)", () => {
    const result = spawnSync(
      process.execPath,
      [WITHOUT_SQLITE, "--conditions=source", "--input-type=module", "-e", importing],
      { cwd: ROOT, env: { PATH: process.env.PATH }, encoding: "utf8", timeout: 60_000 },
    )
    expect(expectTheLine(result)).toContain(`without --no-experimental-sqlite`)
  })

  // The package's default export is the build: it must be as fresh as the files this checks.
  const current = buildIsCurrent([
    "src/index.ts",
    "src/platform/store/node-sqlite.ts",
    "src/platform/store/sqlite.ts",
  ])
  it.runIf(current).each(tooOld)(
    "Node $version: importing the build throws one line naming Node 22.13 (skipped while dist/ is older than src/: npm run build)",
    (node) => {
      const result = spawnSync(node.path, ["--input-type=module", "-e", importing], {
        cwd: ROOT,
        env: { PATH: process.env.PATH },
        encoding: "utf8",
        timeout: 60_000,
      })
      const message = expectTheLine(result)
      expect(message).toContain("needs Node 22.13 or newer")
      expect(message).toContain(`this is Node ${node.version}`)
    },
  )
})
