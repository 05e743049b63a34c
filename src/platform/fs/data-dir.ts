import { homedir } from "node:os"
import { isAbsolute, join, resolve } from "node:path"

/**
 * Where toolbelt keeps its data (the SQLite store, saved tool output): `$TOOLBELT_DATA_DIR`, else
 * `$XDG_DATA_HOME/toolbelt`, else `~/.local/share/toolbelt`. A relative XDG_DATA_HOME is ignored, as the
 * XDG spec requires; a relative TOOLBELT_DATA_DIR is the user's explicit choice and is taken from the cwd.
 */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const own = env.TOOLBELT_DATA_DIR
  if (own) return resolve(own)
  const xdg = env.XDG_DATA_HOME
  if (xdg && isAbsolute(xdg)) return join(xdg, "toolbelt")
  return join(env.HOME || homedir(), ".local", "share", "toolbelt")
}

/** The managed output store inside the data dir; tools may read it without a permission prompt. */
export function outputDir(dataDir: string): string {
  return join(dataDir, "tool-output")
}
