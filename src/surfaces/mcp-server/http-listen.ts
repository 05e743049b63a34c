// Where an HTTP server of toolbelt (`toolbelt serve`, `toolbelt mcp --http`) listens, and whether it
// needs a token: a TCP port, where it does (any local account reaches loopback), or a Unix domain
// socket only this account can connect to (the filesystem's permission is the boundary).

import { randomBytes } from "node:crypto"
import { lstatSync, rmSync, unlinkSync } from "node:fs"
import { chmod, link, lstat, mkdtemp, rm, unlink } from "node:fs/promises"
import { connect, type Server } from "node:net"
import { dirname, join, resolve } from "node:path"
import { isLoopback } from "./guard.ts"

/** A TCP address, or the path of a Unix socket. */
export type Bind =
  | { readonly port: number; readonly host: string; readonly socket?: undefined }
  | { readonly socket: string }

export interface Listening {
  /** The bound TCP port (0 for a socket). */
  readonly port: number
  /** The bound TCP address as a URL's host (`127.0.0.1`, `[::1]`); `localhost` for a socket. */
  readonly host: string
  /** The socket's absolute path, when on one. */
  readonly socket?: string
  /** Removes what listening left on disk (the socket file); call after the server closed. */
  release(): Promise<void>
}

/** Why the server could not listen, said for a person. `code` is the system's error code when one. */
export class ListenError extends Error {
  override readonly name = "ListenError"
  readonly code: string | undefined
  constructor(message: string, code?: string) {
    super(message)
    this.code = code
  }
}

/** The longest path a Unix socket may have (`sun_path` holds 108 bytes with its terminating NUL). */
const MAX_SOCKET_PATH = 107

/** Where to listen: the socket, or the port on the host (default 127.0.0.1); not both, not neither. */
export function bindOf(options: { port?: number; host?: string; socket?: string }): Bind {
  if (options.socket !== undefined) {
    if (options.port !== undefined || options.host !== undefined) {
      throw new ListenError("A Unix socket replaces the port and the host: give --socket PATH alone.")
    }
    return { socket: options.socket }
  }
  if (options.port === undefined) throw new ListenError("Give a port (0 picks a free one) or a socket.")
  return { port: options.port, host: options.host ?? "127.0.0.1" }
}

/**
 * The token requests must carry: the one given; none when told so (`false`, loopback only) or on a
 * socket; else a random one. Throws when `false` would open the server to other machines.
 */
export function tokenFor(options: { token: string | false | undefined; bind: Bind }): string | undefined {
  const { token, bind } = options
  if (token === "") throw new ListenError("The token is empty: give one, or none (false) on loopback only.")
  if (typeof token === "string") return token
  if (token === false) {
    if (bind.socket === undefined && !isLoopback(bind.host)) {
      throw new ListenError(
        `Binding to ${bind.host} without a token would let other machines run tools: drop --no-token (a token is made up and printed), or bind to 127.0.0.1.`,
      )
    }
    return undefined
  }
  return bind.socket === undefined ? randomBytes(24).toString("base64url") : undefined
}

/** Where a server listens, the token its requests must carry, and the Host they must name. */
export interface ListenPlan {
  readonly bind: Bind
  readonly token: string | undefined
  /** The Host requests must name: the bound host, or `localhost` on a socket. */
  readonly host: string
}

/**
 * `bindOf` and `tokenFor` together, for both HTTP servers (serve and `mcp --http`): a `ListenError`
 * becomes the caller's own error class, whose name its command line knows.
 */
export function planListen(
  options: { port?: number; host?: string; socket?: string; token?: string | false },
  asError: (message: string) => Error,
): ListenPlan {
  try {
    const bind = bindOf(options)
    const token = tokenFor({ token: options.token, bind })
    return { bind, token, host: bind.socket === undefined ? bind.host : "localhost" }
  } catch (error) {
    if (error instanceof ListenError) throw asError(error.message)
    throw error
  }
}

/** Listens on `bind`; a TCP failure is rethrown as it came (the caller knows its flags' names). */
export async function listenOn(server: Server, bind: Bind): Promise<Listening> {
  if (bind.socket !== undefined) return listenOnSocket(server, bind.socket)
  await listening(server, (done) => server.listen(bind.port, bind.host, done))
  const address = server.address()
  if (address === null || typeof address === "string")
    throw new ListenError(
      "The server has no TCP address after listening (it was closed meanwhile). Start it again.",
    )
  return {
    port: address.port,
    host: address.family === "IPv6" ? `[${address.address}]` : address.address,
    release: async () => {},
  }
}

/**
 * Listens on a Unix socket at `path`, mode 0600 from the first moment it can be reached.
 * 1. Refuse a path too long for a socket, or one that exists and is not a stale socket (a file, a
 *    folder, a socket a server still answers on); a stale one (nothing answers) is removed.
 * 2. Bind in a new folder of mode 0700 beside it (the umask cannot widen what no one else can reach,
 *    and the process's umask is left alone: changing it would change every file written meanwhile),
 *    set the socket to 0600, then give it its name with `link`, which fails rather than replace
 *    anything that appeared at `path` since step 1.
 * 3. The folder stays until `release` (the system removes the socket's first name there at close);
 *    `release` removes `path` if it is still this socket, and the folder. An exit without `release`
 *    removes them too.
 */
async function listenOnSocket(server: Server, socket: string): Promise<Listening> {
  const path = resolve(socket)
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH) {
    throw new ListenError(
      `The socket path ${path} is ${Buffer.byteLength(path)} bytes; a Unix socket's path has at most ${MAX_SOCKET_PATH}: choose a shorter --socket path.`,
    )
  }
  // 1. What is there already.
  await clearStale(path)

  // 2. Bind where no one else can reach, then name it.
  const folder = await mkdtemp(join(dirname(path), ".toolbelt-")).catch((error: NodeJS.ErrnoException) => {
    throw new ListenError(
      `Cannot create the socket in ${dirname(path)} (${error.code}): choose a --socket path in a folder you can write.`,
      error.code,
    )
  })
  const first = join(folder, "s")
  let named = false
  try {
    if (Buffer.byteLength(first) > MAX_SOCKET_PATH) {
      throw new ListenError(
        `The socket path ${path} leaves no room for the private folder it is created in (${first} is over ${MAX_SOCKET_PATH} bytes): choose a shorter --socket path.`,
      )
    }
    await listening(server, (done) => server.listen(first, done))
    await chmod(first, 0o600)
    await link(first, path).catch((error: NodeJS.ErrnoException) => {
      throw error.code === "EEXIST"
        ? new ListenError(
            `${path} appeared while the server was starting: remove it, or choose another --socket path.`,
            error.code,
          )
        : error
    })
    named = true
    await unlink(first)
  } catch (error) {
    if (named) await unlink(path).catch(() => {})
    await new Promise<void>((done) => (server.listening ? server.close(() => done()) : done()))
    await rm(folder, { recursive: true, force: true })
    throw error
  }
  const { dev, ino } = await lstat(path)

  // 3. Cleaning up.
  const ours = (): boolean => {
    try {
      const now = lstatSync(path)
      return now.dev === dev && now.ino === ino
    } catch {
      return false
    }
  }
  const removeNow = () => {
    if (ours()) unlinkSync(path)
    rmSync(folder, { recursive: true, force: true })
  }
  process.once("exit", removeNow)
  return {
    port: 0,
    host: "localhost",
    socket: path,
    release: async () => {
      process.off("exit", removeNow)
      removeNow()
    },
  }
}

/** Step 1: nothing at `path`, or a socket no server answers on (removed); anything else is refused. */
async function clearStale(path: string): Promise<void> {
  const found = await lstat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined
    throw new ListenError(`Cannot check ${path} (${error.code}): choose another --socket path.`, error.code)
  })
  if (!found) return
  if (!found.isSocket()) {
    throw new ListenError(
      `${path} exists and is not a socket, and is never replaced: remove it yourself, or choose another --socket path.`,
      "EEXIST",
    )
  }
  const answered = await new Promise<string | undefined>((done) => {
    const probe = connect(path)
    probe.once("connect", () => {
      probe.destroy()
      done(undefined)
    })
    probe.once("error", (error: NodeJS.ErrnoException) => done(error.code ?? "error"))
  })
  if (answered === undefined) {
    throw new ListenError(
      `A server is already listening on ${path} (another toolbelt?): stop it, or choose another --socket path.`,
      "EADDRINUSE",
    )
  }
  if (answered !== "ECONNREFUSED") {
    throw new ListenError(
      `${path} is a socket this account cannot check (${answered}): remove it, or choose another --socket path.`,
      answered,
    )
  }
  await unlink(path)
}

/** Runs `listen` and waits until the server listens, or rejects with its error. */
function listening(server: Server, listen: (done: () => void) => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    listen(() => {
      server.off("error", reject)
      resolve()
    })
  })
}
