// Step 1 of building a toolbelt: which project, whether it is trusted, which config, where its data lives.

import { realpathSync } from "node:fs"
import { resolve } from "node:path"
import { defaultDataDir } from "../platform/fs/data-dir.ts"
import { type Config, type ConfigLayers, loadConfigLayers } from "../runtime/config/config.ts"
import { assessProjectTrust, configFor, type ProjectTrust } from "../runtime/config/trust/project-trust.ts"
import type { TrustStore } from "../runtime/config/trust/trust-store.ts"
import { findWorktree } from "./worktree.ts"

export interface Project {
  readonly env: NodeJS.ProcessEnv
  /** The project directory, its symlinks resolved. */
  readonly directory: string
  readonly worktree: string
  /** The config in effect: the user's, with the project's over it as far as its trust allows. */
  readonly config: Config
  /** Whether `config` was handed over instead of read from `toolbelt.json(c)` files. */
  readonly configGiven: boolean
  /** The user's layer and the project's, apart (the project's as written, trusted or not). */
  readonly layers: ConfigLayers
  /** Whether what the project contributes (tool files, plugins, MCP servers, ...) is applied. */
  readonly trust: ProjectTrust
  readonly dataDir: string
}

/**
 * 1. The project directory (default: the current one), its real path, and its worktree.
 * 2. The config layers: the user's and the project's files; config given in code is the caller's own,
 *    trusted as given, and no config file is read.
 * 3. The project's trust (`trust: true` or `TOOLBELT_TRUST=1` trusts it for this run).
 * 4. The config in effect, chosen by that trust; the data dir.
 */
export async function openProject(options: {
  directory?: string | undefined
  config?: Config | undefined
  dataDir?: string | undefined
  env?: NodeJS.ProcessEnv | undefined
  trust?: boolean | undefined
  trustStore?: TrustStore | undefined
}): Promise<Project> {
  const env = options.env ?? process.env
  // 1. Directory.
  const directory = realpathSync(resolve(options.directory ?? process.cwd()))
  const worktree = findWorktree(directory)
  // 2. Layers.
  const layers: ConfigLayers = options.config
    ? { user: options.config, project: {}, userFiles: [], projectFiles: [] }
    : await loadConfigLayers(directory, env)
  // 3. Trust.
  const trust = await assessProjectTrust({
    directory,
    worktree,
    env,
    layers,
    ...(options.trust !== undefined ? { trust: options.trust } : {}),
    ...(options.trustStore ? { store: options.trustStore } : {}),
  })
  // 4. Config.
  return {
    env,
    directory,
    worktree,
    config: configFor(layers, trust),
    configGiven: options.config !== undefined,
    layers,
    trust,
    dataDir: options.dataDir ?? defaultDataDir(env),
  }
}
