// node:sqlite, loaded once for the store, and the Node it sets as toolbelt's floor.
//
// node:sqlite is the newest thing toolbelt needs of Node: unflagged from 22.13 (23.4 on the odd line),
// missing without a flag before. Importing it where it is missing fails with ERR_UNKNOWN_BUILTIN_MODULE,
// which names neither toolbelt nor a remedy, so this module says which Node to use instead. The library's
// entry (src/index.ts) imports it first, so an unsupported Node meets this line before anything else runs.
import type * as NodeSqlite from "node:sqlite"

/** The oldest Node toolbelt runs on; `engines` in package.json and bin/toolbelt.js say the same. */
export const NODE_FLOOR = "22.13"

/** One line naming the Node to use, for a runtime without node:sqlite. */
export function unsupportedNodeMessage(version: string = process.version): string {
  if (shipsSqlite(version))
    return `agent-toolbelt needs node:sqlite, which this Node (${version}) was started without: run it without --no-experimental-sqlite.`
  return `agent-toolbelt needs Node ${NODE_FLOOR} or newer for node:sqlite (this is Node ${version}): use Node 24 LTS, or run it on Bun.`
}

/** Whether a Node version has node:sqlite without a flag: 22.13+, 23.4+, 24 and later. */
function shipsSqlite(version: string): boolean {
  const [major = 0, minor = 0] = version.replace(/^v/, "").split(".").map(Number)
  return major >= 24 || (major === 23 && minor >= 4) || (major === 22 && minor >= 13)
}

/**
 * Runs `load` without the ExperimentalWarning whose message starts with `feature`, which Node prints
 * when an experimental builtin is first loaded (node:sqlite on Node 22). That warning is about a choice
 * toolbelt made, not one its user can act on. Any other warning, experimental or not, still goes out.
 */
export function withoutExperimentalWarning<T>(feature: string, load: () => T): T {
  const emitWarning = process.emitWarning
  process.emitWarning = function (this: NodeJS.Process, warning: string | Error, ...rest: unknown[]) {
    const options = rest[0]
    const type =
      warning instanceof Error
        ? warning.name
        : typeof options === "string"
          ? options
          : (options as { type?: string } | undefined)?.type
    const message = warning instanceof Error ? warning.message : warning
    if (type === "ExperimentalWarning" && message.startsWith(feature)) return
    return Reflect.apply(emitWarning, this, [warning, ...rest])
  } as typeof process.emitWarning
  try {
    return load()
  } finally {
    process.emitWarning = emitWarning
  }
}

/** node:sqlite, or undefined on Bun (the store uses bun:sqlite there). Throws the floor's line without it. */
function loadNodeSqlite(): typeof NodeSqlite | undefined {
  if (process.versions.bun) return undefined
  // getBuiltinModule (Node 20.16+, 22.3+) loads synchronously, so the warning filter covers exactly
  // this load; on a Node without it, node:sqlite is missing too.
  const sqlite =
    typeof process.getBuiltinModule === "function"
      ? withoutExperimentalWarning("SQLite", () => process.getBuiltinModule("node:sqlite"))
      : undefined
  if (!sqlite) throw new Error(unsupportedNodeMessage())
  return sqlite
}

export const nodeSqlite = loadNodeSqlite()
