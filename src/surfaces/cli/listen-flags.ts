// The flags that say where `toolbelt serve` and `toolbelt mcp --http` listen and who may use them:
// `--socket PATH`, `--token TOKEN` (or its variable), `--no-token`.
import { userInfo } from "node:os"
import { UsageError } from "./io.ts"

export interface ListenFlags {
  /** A Unix socket to listen on instead of a port. */
  readonly socket?: string
  /** The token chosen; `false`: none (`--no-token`); absent: the server makes one up (none on a socket). */
  readonly token?: string | false
}

/** What the socket line of the start-up message says in parentheses. */
export const SOCKET_NOTE = "mode 0600: only this account can connect, so no token is needed"

/**
 * Reads the flags: `--socket` goes alone (no `--host`, no port), `--no-token` excludes `--token`
 * and wins over the variable's token (the flag is the more explicit of the two).
 */
export function listenFlags(
  values: {
    readonly socket?: string
    readonly token?: string
    readonly "no-token"?: boolean
    readonly host?: string
    readonly port?: string
  },
  envToken: string | undefined,
  command: "serve" | "mcp",
): ListenFlags {
  const portFlag = command === "serve" ? "--port" : "--http PORT"
  if (values.socket !== undefined) {
    if (values.socket === "") throw new UsageError("--socket needs a path.")
    if (values.host !== undefined || values.port !== undefined) {
      throw new UsageError(`--socket replaces ${portFlag} and --host: give one or the other.`)
    }
  }
  if (values.token === "") throw new UsageError("--token needs a value (or --no-token for none).")
  if (values["no-token"]) {
    if (values.token !== undefined)
      throw new UsageError("--token and --no-token contradict each other: give one.")
    return { ...(values.socket === undefined ? {} : { socket: values.socket }), token: false }
  }
  const token = values.token ?? (envToken || undefined)
  return {
    ...(values.socket === undefined ? {} : { socket: values.socket }),
    ...(token === undefined ? {} : { token }),
  }
}

/** The warning `--no-token` prints at every start: who can now use the server, and the safe way. */
export function noTokenWarning(command: "serve" | "mcp"): string {
  const { username, uid } = userInfo()
  return `toolbelt ${command}: WARNING: --no-token: this server needs no token, so every account on this machine (any local user, and any program they run) can use it as ${username} (uid ${uid}): run commands, read and write files. Use --socket PATH instead (a Unix socket of mode 0600 that only this account can connect to), or drop --no-token to require a token.\n`
}
