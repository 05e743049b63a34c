#!/usr/bin/env node
// Starts the toolbelt CLI. This file stays plain JavaScript that any Node can parse, because a user's
// PATH may hold an older Node (20 on many machines) than toolbelt runs on (22.18+ / 24 LTS). When the
// running Node cannot run toolbelt, it re-runs this file on the Node pinned in our own dependencies.
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join, sep } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))
const source = join(here, "..", "src", "cli", "bin.ts")
const built = join(here, "..", "dist", "cli", "bin.js")
// Node refuses to strip types from files under node_modules, so an installed package runs its build.
const installed = here.split(sep).includes("node_modules")
const entry = !installed && existsSync(source) ? source : built

function canRun() {
  if (process.versions.bun) return true
  const [major, minor] = process.versions.node.split(".").map(Number)
  if (entry.endsWith(".ts"))
    return major > 23 || (major === 23 && minor >= 6) || (major === 22 && minor >= 18)
  return major > 22 || (major === 22 && minor >= 12)
}

function pinnedNode() {
  try {
    const require = createRequire(import.meta.url)
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
