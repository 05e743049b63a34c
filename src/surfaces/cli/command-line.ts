import { parseArgs } from "node:util"
import type { IO } from "./io.ts"

/** A command of the CLI: what runs it and what `--help` prints. */
export interface Command {
  readonly run: (argv: string[], io: IO) => Promise<number>
  readonly help: string
}

interface Flag {
  readonly type: "string" | "boolean"
  readonly short?: string
}

/**
 * Flags that mean the same in every command that takes them, spelled once: `--cwd DIR` the project
 * directory, `--agent NAME` whose permissions apply, `--session ID` the session the work belongs to,
 * `--yes` approve permission asks, `--json` one JSON object on stdout, `--trust` apply what the project
 * contributes (tool files, plugins, MCP servers, ...) for this run without it being trusted, `--store
 * URL` the PostgreSQL database of the records (`store-flag.ts`).
 */
export const SHARED_FLAGS = {
  cwd: { type: "string" },
  agent: { type: "string" },
  session: { type: "string" },
  yes: { type: "boolean", short: "y" },
  json: { type: "boolean" },
  trust: { type: "boolean" },
  store: { type: "string" },
} as const satisfies Record<string, Flag>

export type SharedFlag = keyof typeof SHARED_FLAGS

type Values<F extends Record<string, Flag>> = {
  [K in keyof F]?: F[K]["type"] extends "boolean" ? boolean : string
}

export interface CommandLine<V> {
  readonly values: V
  readonly positionals: string[]
}

/**
 * Parses one command's arguments: the shared flags it takes, its own, and `-h/--help` (every command
 * has it).
 * 1. Parse strictly: an unknown flag, a flag without its value, or (when `positionals` is false) a
 *    positional argument throws a `ERR_PARSE_ARGS_*` error, which `main` reports as a usage error with
 *    the command's help.
 * 2. `--help`: print the command's help to stdout and return undefined (the command then exits 0).
 * 3. Otherwise return the flags' values and the positional arguments.
 */
export function parseCommandLine<S extends SharedFlag, O extends Record<string, Flag> = {}>(options: {
  argv: string[]
  io: IO
  /** The command's help text. */
  help: string
  /** The shared flags the command takes. */
  shared: readonly S[]
  /** The command's own flags. */
  flags?: O
  /** Whether the command takes positional arguments (default: it does; parseArgs refuses them otherwise). */
  positionals?: boolean
}): CommandLine<Values<Pick<typeof SHARED_FLAGS, S> & O>> | undefined {
  const shared = Object.fromEntries(options.shared.map((name) => [name, SHARED_FLAGS[name]]))
  const { values, positionals } = parseArgs({
    args: options.argv,
    options: { ...shared, ...options.flags, help: { type: "boolean", short: "h" } },
    strict: true,
    allowPositionals: options.positionals ?? true,
  })
  if (values.help) {
    options.io.stdout.write(options.help)
    return undefined
  }
  return { values: values as Values<Pick<typeof SHARED_FLAGS, S> & O>, positionals }
}
