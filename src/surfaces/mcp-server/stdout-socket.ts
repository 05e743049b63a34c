// A larger send buffer for the socket a client gave the server as stdout.
//
// A client that starts the server with Node's `child_process` (the official SDKs, most agents) talks
// over a Unix socket pair, whose send buffer holds about 200 KB: four pages of a read. Answers the
// socket cannot hold wait in the server (direct-output.ts), and while the server works through its
// next calls the client runs out of answers to read. With the buffer at 4 MB (8 MB as Linux counts it)
// the server's answers are in the socket as soon as they are made: official client, 16 reads of a
// 37 KB file in flight, 1,633-1,755 → 1,882-2,276 calls/s, and the client's event loop busy 80% of the
// time instead of 68%.
//
// Node has no call for SO_SNDBUF on a stream (only on UDP sockets), so a short-lived helper sets it: a
// Node given a duplicate of the socket as its descriptor 3 opens it as a UDP handle (the one handle
// whose buffer size Node can set; `setsockopt` does not care what kind of socket it is) through the
// `udp_wrap` binding, sets the size and exits. The option belongs to the socket, so it stays after the
// helper's copy is closed. Where anything of that is missing (not Linux, stdout not a socket, another
// runtime, a Node without the binding), nothing changes: the server works as it did, only slower.

import { spawn } from "node:child_process"
import { fstatSync } from "node:fs"
import { logger } from "../../platform/util/log.ts"

const log = logger("mcp")

/** What the send buffer is asked to be (Linux doubles it, and caps it at `net.core.wmem_max` × 2). */
export const STDOUT_SOCKET_BYTES = 4 * 1024 * 1024

/** How long the helper may take (it takes one Node start, ~50 ms). */
const HELPER_MS = 10_000

/** The helper's program: its descriptor 3 is the socket; it prints the buffer's size as it is after. */
function helperProgram(bytes: number): string {
  return [
    'const { UDP } = process.binding("udp_wrap")',
    "const handle = new UDP()",
    "if (handle.open(3) !== 0) process.exit(2)",
    "const context = {}",
    "const before = handle.bufferSize(0, false, context)",
    `handle.bufferSize(${bytes}, false, context)`,
    "const after = handle.bufferSize(0, false, context)",
    "handle.close()",
    'process.stderr.write(String(before ?? "") + " " + String(after ?? ""))',
  ].join("\n")
}

/** The send buffer's size before and after, as the kernel reports them. */
export interface Widened {
  readonly before: number
  readonly after: number
}

/**
 * Raises the send buffer of the socket at `fd` (default: stdout) to `bytes`; resolves with its size
 * before and after, or undefined when it was not a socket, not Linux, or the helper could not do it.
 * Never rejects.
 */
export function widenStdoutSocket(
  options: { fd?: number; bytes?: number } = {},
): Promise<Widened | undefined> {
  const fd = options.fd ?? 1
  if (process.platform !== "linux" || process.versions.bun !== undefined) return Promise.resolve(undefined)
  try {
    if (!fstatSync(fd).isSocket()) return Promise.resolve(undefined)
  } catch {
    return Promise.resolve(undefined)
  }
  const { promise, resolve } = Promise.withResolvers<Widened | undefined>()
  try {
    const helper = spawn(
      process.execPath,
      ["--no-deprecation", "--no-warnings", "-e", helperProgram(options.bytes ?? STDOUT_SOCKET_BYTES)],
      // No environment of the user's: nothing to load (NODE_OPTIONS) for a helper of a few lines.
      { stdio: ["ignore", "ignore", "pipe", fd], env: {}, windowsHide: true },
    )
    // A helper that has not finished in HELPER_MS is stopped (a server that ends meanwhile waits for
    // the helper, one Node start at most, but not for this timer).
    const stop = setTimeout(() => helper.kill("SIGKILL"), HELPER_MS)
    stop.unref()
    let said = ""
    helper.stderr?.setEncoding("utf8")
    helper.stderr?.on("data", (text: string) => {
      said += text
    })
    helper.once("error", () => resolve(undefined))
    helper.once("close", (code) => {
      clearTimeout(stop)
      const [before, after] = said.split(" ").map(Number)
      const sizes = before !== undefined && after !== undefined && before > 0 && after > 0
      if (code === 0 && sizes) {
        log.debug(`stdout's socket holds ${after} bytes (it held ${before})`)
        resolve({ before, after })
      } else resolve(undefined)
    })
  } catch {
    resolve(undefined)
  }
  return promise
}
