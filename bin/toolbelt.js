#!/usr/bin/env node
// Starts the toolbelt CLI. This file stays plain JavaScript that any Node can parse, because a user's
// PATH may hold an older Node (20 on many machines) than toolbelt runs on (22.18+ / 24 LTS). When the
// running Node cannot run toolbelt, it re-runs this file on the Node pinned in our own dependencies.
//
// Which code runs:
// 1. The bundled build (dist/cli.bundle.js, made by `npm run build`, which `npm install` runs): when
//    toolbelt is installed as a package, or in a clone when no source file changed since the build
//    started (dist/build-stamp.json). A developer editing src/ never runs a stale build.
// 2. Otherwise the TypeScript sources (src/surfaces/cli/bin.ts), type-stripped by Node at every start (slower).
// TOOLBELT_RUN=build or TOOLBELT_RUN=source forces one of them (benchmarks, debugging).
import { spawn } from "node:child_process"
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import * as nodeModule from "node:module"
import { dirname, join, sep } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, "..")
const sourceDir = join(root, "src")
const source = join(sourceDir, "surfaces", "cli", "bin.ts")
const bundle = join(root, "dist", "cli.bundle.js")
// Node refuses to strip types from files under node_modules, so an installed package runs its build.
const installed = here.split(sep).includes("node_modules")
const entry = chooseEntry()

function chooseEntry() {
  const forced = process.env.TOOLBELT_RUN
  if (forced === "build" || installed || !existsSync(source)) return bundle
  if (forced === "source") return source
  return buildIsCurrent() ? bundle : source
}

/** Whether the build started after the last change to any source file it compiles. */
function buildIsCurrent() {
  let started
  try {
    started = JSON.parse(readFileSync(join(root, "dist", "build-stamp.json"), "utf8")).started
  } catch {
    return false
  }
  if (typeof started !== "number" || !existsSync(bundle)) return false
  // A folder's time changes when a file in it is added, removed or renamed (what an editor's safe save does).
  if (statSync(sourceDir).mtimeMs >= started) return false
  for (const file of readdirSync(sourceDir, { recursive: true, withFileTypes: true })) {
    // Tests and their fixtures are not compiled: editing them leaves the build current.
    if (file.name.endsWith(".test.ts") || file.parentPath.includes("fixtures")) continue
    if (statSync(join(file.parentPath, file.name)).mtimeMs >= started) return false
  }
  return true
}

function canRun() {
  if (process.versions.bun) return true
  const [major, minor] = process.versions.node.split(".").map(Number)
  if (entry.endsWith(".ts"))
    return major > 23 || (major === 23 && minor >= 6) || (major === 22 && minor >= 18)
  return major > 22 || (major === 22 && minor >= 12)
}

function pinnedNode() {
  try {
    const require = nodeModule.createRequire(import.meta.url)
    const bin = join(dirname(require.resolve("node/package.json")), "bin", "node")
    return existsSync(bin) ? bin : undefined
  } catch {
    return undefined
  }
}

/** Set by a re-running parent (below) for the child it starts, so the child can outlive it by nothing. */
const PARENT_ENV = "TOOLBELT_RERUN_PARENT"

if (canRun()) {
  const parent = Number(process.env[PARENT_ENV])
  // Not inherited further: a command that runs toolbelt itself must not watch this process's parent.
  delete process.env[PARENT_ENV]
  if (parent > 0) {
    // The parent may be killed with SIGKILL, which it cannot pass on: then this process is re-parented,
    // and ends itself as if the parent had passed SIGTERM on, so no call outlives the command run.
    setInterval(() => {
      if (process.ppid !== parent) process.kill(process.pid, "SIGTERM")
    }, 250).unref()
  }
  // Compiled code is cached on disk (in the system temp dir) and reused while the files are unchanged.
  nodeModule.enableCompileCache?.()
  await import(pathToFileURL(entry).href)
} else {
  const node = pinnedNode()
  if (!node) {
    process.stderr.write(
      `toolbelt needs Node 22.18 or newer (this is ${process.version}). Install Node 24 LTS, or run npm install in the toolbelt package so its pinned Node is available.\n`,
    )
    process.exit(2)
  }
  const child = spawn(node, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: "inherit",
    env: { ...process.env, [PARENT_ENV]: String(process.pid) },
  })
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal))
  child.on("exit", (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal)
      process.kill(process.pid, signal)
    } else process.exit(code ?? 1)
  })
}
