// The `lsp` section of toolbelt.json, as opencode writes it:
//   "lsp": false                                  no language servers at all
//   "lsp": {"pyright": false}                     a built-in turned off (also {"disabled": true})
//   "lsp": {"typescript": {"initialization": {...}}}   a built-in with settings or env of its own
//   "lsp": {"mine": {"command": ["mine-ls", "--stdio"], "extensions": [".mine"], "env": {...}}}

import { BUILTIN_SERVERS } from "./builtin-servers.ts"
import { findCommand, programArgv } from "./find-command.ts"
import type { ServerDefinition } from "./server-definition.ts"

export interface ServerConfig {
  /** The servers that apply, built-ins first, then the configured ones. */
  readonly servers: readonly ServerDefinition[]
  /** Entries that were ignored, and why (shown when a file finds no server). */
  readonly problems: readonly string[]
}

/**
 * The servers `section` (config `lsp`) leaves on:
 * 1. Absent or `true`: every built-in. `false`: none.
 * 2. Each entry `false` or `{disabled: true}` turns its server off.
 * 3. An entry naming a built-in changes it: `command` replaces how it starts; `extensions` and `env`
 *    replace its own; `initialization` is merged over its own, key by key.
 * 4. Any other entry adds a server; it needs `command` (the program first) and `extensions`.
 */
export function serverConfig(section: unknown): ServerConfig {
  if (section === undefined || section === true)
    return { servers: [...BUILTIN_SERVERS.values()], problems: [] }
  if (section === false) return { servers: [], problems: [] }
  if (!isRecord(section))
    return {
      servers: [...BUILTIN_SERVERS.values()],
      problems: ['"lsp" must be false or an object of servers by name; it was ignored'],
    }
  const servers = new Map(BUILTIN_SERVERS)
  const problems: string[] = []
  for (const [id, entry] of Object.entries(section)) {
    if (entry === false || (isRecord(entry) && entry.disabled === true)) {
      servers.delete(id)
      continue
    }
    const server = configured(id, entry, BUILTIN_SERVERS.get(id))
    if (typeof server === "string") problems.push(`lsp.${id}: ${server}; it was ignored`)
    else servers.set(id, server)
  }
  return { servers: [...servers.values()], problems }
}

/** The server an entry describes, or what is wrong with it. */
function configured(
  id: string,
  entry: unknown,
  builtin: ServerDefinition | undefined,
): ServerDefinition | string {
  if (!isRecord(entry)) return "expected false or an object with command, extensions, env, initialization"
  const command = entry.command === undefined ? undefined : commandOf(entry.command)
  if (command === null) return "command must be a list of strings, the program first"
  const extensions = entry.extensions === undefined ? undefined : extensionsOf(entry.extensions)
  if (extensions === null) return 'extensions must be a list of file extensions (".ts")'
  if (entry.env !== undefined && !isStringRecord(entry.env)) return "env must map names to strings"
  if (entry.initialization !== undefined && !isRecord(entry.initialization))
    return "initialization must be an object"
  if (!builtin && !command) return "a server toolbelt does not know needs a command"
  if (!builtin && !extensions) return "a server toolbelt does not know needs extensions"
  const base = builtin ?? { id, extensions: [], rootMarkers: [] }
  return {
    id,
    extensions: extensions ?? base.extensions,
    rootMarkers: base.rootMarkers,
    launch: command ? (place) => launchCommand(command, place) : builtin!.launch,
    ...(entry.env || builtin?.env ? { env: (entry.env as Record<string, string>) ?? builtin?.env } : {}),
    ...(entry.initialization || builtin?.initialization
      ? { initialization: merged(builtin?.initialization, entry.initialization as Record<string, unknown>) }
      : {}),
  }
}

function launchCommand(
  [program, ...args]: readonly string[],
  place: Parameters<ServerDefinition["launch"]>[0],
): ReturnType<ServerDefinition["launch"]> {
  const found = findCommand({ name: program!, ...place })
  if (!found) return { missing: `${program} was not found on PATH or in the project's node_modules/.bin` }
  return { argv: programArgv(found, args) }
}

/** `over` laid on `base`, objects merged key by key, anything else replaced. */
function merged(
  base: Readonly<Record<string, unknown>> | undefined,
  over: Readonly<Record<string, unknown>> | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base }
  for (const [key, value] of Object.entries(over ?? {})) {
    const under = out[key]
    out[key] = isRecord(under) && isRecord(value) ? merged(under, value) : value
  }
  return out
}

function commandOf(value: unknown): string[] | null {
  if (typeof value === "string" && value !== "") return [value]
  if (Array.isArray(value) && value.length > 0 && value.every((part) => typeof part === "string") && value[0])
    return value
  return null
}

function extensionsOf(value: unknown): string[] | null {
  if (!Array.isArray(value) || !value.every((ext) => typeof ext === "string" && ext !== "")) return null
  return value.map((ext: string) => (ext.startsWith(".") ? ext : `.${ext}`).toLowerCase())
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return isRecord(value) && Object.values(value).every((v) => typeof v === "string")
}
