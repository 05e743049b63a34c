// Step 1 of building a toolbelt: which project, whether it is trusted, which config, where its data lives.

import { realpathSync } from "node:fs"
import { resolve } from "node:path"
import { defaultDataDir } from "../platform/fs/data-dir.ts"
import { isStoreUrl, redactStoreUrl } from "../platform/store/postgres/url.ts"
import { logger } from "../platform/util/log.ts"
import {
  type Config,
  ConfigError,
  type ConfigFile,
  type ConfigLayers,
  loadConfigLayers,
  readConfigFile,
} from "../runtime/config/config.ts"
import { unknownKeys } from "../runtime/config/keys.ts"
import { opencodeFilesIn, opencodeUserFiles } from "../runtime/config/other-agents.ts"
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
  /**
   * The store the environment or config names (`TOOLBELT_STORE`, else the user's `"store"`, else a
   * trusted project's); none: the caller's store, or the data dir's SQLite file.
   */
  readonly store: string | undefined
  /** What is wrong in the config files but did not stop them: each unknown key, naming it and its file. */
  readonly configWarnings: readonly string[]
}

/**
 * 1. The project directory (default: the current one), its real path, and its worktree.
 * 2. The config layers: the user's and the project's files; config given in code is the caller's own,
 *    trusted as given, and no config file is read.
 * 3. The project's trust (`trust: true` or `TOOLBELT_TRUST=1` trusts it for this run).
 * 4. The config in effect, chosen by that trust; the data dir.
 * 5. The store named outside the code (`configuredStore`), unless the caller gives one.
 * 6. The unknown keys of toolbelt's own files, said on stderr once per process (`TOOLBELT_LOG=error`
 *    hides them) and kept in `configWarnings`.
 */
export async function openProject(options: {
  directory?: string | undefined
  config?: Config | undefined
  dataDir?: string | undefined
  env?: NodeJS.ProcessEnv | undefined
  trust?: boolean | undefined
  trustStore?: TrustStore | undefined
  /** The caller's store: when given, neither the environment nor config is asked for one. */
  store?: unknown
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
  const store = options.store === undefined ? configuredStore(env, layers, trust) : undefined
  // 6. Warnings.
  const configWarnings = unknownKeys([...layers.userFiles, ...layers.projectFiles]).map((key) => key.message)
  for (const warning of configWarnings) warnOnce(warning)
  return {
    env,
    directory,
    worktree,
    config: options.config
      ? configFor(layers, trust)
      : await withOpencodeBatch(configFor(layers, trust), env, directory, trust),
    configGiven: options.config !== undefined,
    layers,
    trust,
    dataDir: options.dataDir ?? defaultDataDir(env),
    store,
    configWarnings,
  }
}

/**
 * opencode's `experimental.batch_tool` (the spec's flag) turns batch on or off when toolbelt's own files
 * say nothing of `batch`: from the user's opencode config, and from the project's once it is trusted (an
 * untrusted project's is listed among what it would change). A file that cannot be read is said
 * elsewhere (the permission policy reads the same files); here it is passed over.
 */
async function withOpencodeBatch(
  config: Config,
  env: NodeJS.ProcessEnv,
  directory: string,
  trust: Pick<ProjectTrust, "trusted">,
): Promise<Config> {
  if (config.batch !== undefined) return config
  const files = [...opencodeUserFiles(env), ...(trust.trusted ? opencodeFilesIn(directory, "project") : [])]
  let batch: boolean | undefined
  for (const file of files) {
    const value = await readConfigFile(file).catch(() => undefined)
    const flag = (value?.experimental as Record<string, unknown> | undefined)?.batch_tool
    if (typeof flag === "boolean") batch = flag
  }
  return batch === undefined ? config : { ...config, batch }
}

const log = logger("config")
/** Warnings given in this process: a server that opens many toolbelts says each once. */
const warned = new Set<string>()

function warnOnce(message: string): void {
  if (warned.has(message)) return
  warned.add(message)
  log.warn(message)
}

/**
 * The store `TOOLBELT_STORE` names, else the user's config `"store"`, else a trusted project's: the
 * person's choice wins over a project's, and an untrusted project's is left out (and reported so, as
 * every key it brings: it would send every session's record to a database of its choosing).
 */
export function configuredStore(
  env: NodeJS.ProcessEnv,
  layers: ConfigLayers,
  trust: Pick<ProjectTrust, "trusted">,
): string | undefined {
  if (env.TOOLBELT_STORE?.trim()) return checkStoreUrl(env.TOOLBELT_STORE, "TOOLBELT_STORE")
  // A wrong value is an error naming the file it is written in.
  const named = (config: Config, files: readonly ConfigFile[]): string | undefined => {
    if (config.store === undefined) return undefined
    const file = files.findLast(({ value }) => value.store !== undefined)?.file
    return checkStoreUrl(config.store, file ? `"store" in ${file}` : 'config "store"')
  }
  return (
    named(layers.user, layers.userFiles) ??
    (trust.trusted ? named(layers.project, layers.projectFiles) : undefined)
  )
}

/**
 * A store setting checked: a `postgres://` or `postgresql://` URL, returned trimmed; anything else is
 * a `ConfigError` naming where it came from (its password never shown) and what it takes. A file path
 * is refused rather than taken as a SQLite file: a mistyped URL would otherwise quietly become a file.
 */
export function checkStoreUrl(value: unknown, from: string): string {
  if (typeof value === "string" && isStoreUrl(value)) return value.trim()
  const shown = typeof value === "string" ? JSON.stringify(redactStoreUrl(value)) : JSON.stringify(value)
  throw new ConfigError(
    `${from} is ${shown}: it takes a PostgreSQL URL, postgres://user:password@host:port/database (sslmode and the other TLS settings as query parameters). Leave it out for the SQLite file in the data dir (TOOLBELT_DATA_DIR says where).`,
  )
}
