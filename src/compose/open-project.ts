// Step 1 of building a toolbelt: which project, which config, where its data lives.

import { realpathSync } from "node:fs"
import { resolve } from "node:path"
import { defaultDataDir } from "../platform/fs/data-dir.ts"
import { type Config, loadConfig } from "../runtime/config/config.ts"
import { findWorktree } from "./worktree.ts"

export interface Project {
  readonly env: NodeJS.ProcessEnv
  /** The project directory, its symlinks resolved. */
  readonly directory: string
  readonly worktree: string
  readonly config: Config
  /** Whether `config` was handed over instead of read from `toolbelt.json(c)` files. */
  readonly configGiven: boolean
  readonly dataDir: string
}

/** The project directory (default: the current one), its worktree, its config (given or read) and data dir. */
export async function openProject(options: {
  directory?: string | undefined
  config?: Config | undefined
  dataDir?: string | undefined
  env?: NodeJS.ProcessEnv | undefined
}): Promise<Project> {
  const env = options.env ?? process.env
  const directory = realpathSync(resolve(options.directory ?? process.cwd()))
  return {
    env,
    directory,
    worktree: findWorktree(directory),
    config: options.config ?? (await loadConfig(directory, env)).config,
    configGiven: options.config !== undefined,
    dataDir: options.dataDir ?? defaultDataDir(env),
  }
}
