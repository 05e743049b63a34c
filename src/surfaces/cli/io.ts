import { fstatSync } from "node:fs"
import { directStdout } from "./direct-stdout.ts"

/** Where a command writes: injectable so commands can be tested in-process as well as as a subprocess. */
export interface IO {
  readonly stdout: NodeJS.WritableStream
  readonly stderr: NodeJS.WritableStream
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean }
  readonly env: NodeJS.ProcessEnv
  readonly cwd: string
  /**
   * Whether a stream is a terminal, asked without building it (processIO); where absent, the stream's
   * own `isTTY` answers (an IO a test makes).
   */
  readonly terminal?: (stream: StdioName) => boolean
}

export type StdioName = "stdin" | "stdout" | "stderr"

/** Whether `io`'s `stream` is a terminal (a person may be there to answer a prompt, see colours). */
export function isTerminal(io: IO, stream: StdioName): boolean {
  return io.terminal ? io.terminal(stream) : Boolean((io[stream] as { isTTY?: boolean }).isTTY)
}

const FD: Record<StdioName, number> = { stdin: 0, stdout: 1, stderr: 2 }

/**
 * isatty(fd) without building the stream: `process.stdin.isTTY` makes the stream first (a pipe's is a
 * net.Socket, a file's loads the fs streams), ~4 ms of a start that never reads it. A descriptor that is
 * no character device (a pipe, a file, a socket, closed) is no terminal, nor on Linux one of the memory
 * devices (major 1: /dev/null, /dev/zero, what scripts and services redirect from); any other character
 * device is asked of node:tty (itself ~4 ms to load).
 */
function fdIsTerminal(stream: StdioName): boolean {
  const fd = FD[stream]
  try {
    const stat = fstatSync(fd)
    if (!stat.isCharacterDevice()) return false
    if (process.platform === "linux" && ((stat.rdev >> 8) & 0xfff) === LINUX_MEMORY_DEVICES) return false
  } catch {
    return false
  }
  return process.getBuiltinModule("node:tty").isatty(fd)
}

/** Linux's major number of /dev/null, /dev/zero, /dev/full and the random devices. */
const LINUX_MEMORY_DEVICES = 1

/**
 * The process's own streams, each made on first use: Node builds a stream object (and loads the stream
 * modules behind it) the first time `process.stdin` is read, a few ms of every start for a command that
 * never reads its input.
 */
export function processIO(): IO {
  return {
    stdout: directStdout(),
    get stderr() {
      return process.stderr
    },
    get stdin() {
      return process.stdin
    },
    env: process.env,
    cwd: process.cwd(),
    terminal: fdIsTerminal,
  }
}

/**
 * Exit codes of every command: 0 done, 1 the tool (or the work) failed, 2 the command line was wrong,
 * 130 the person stopped it (Ctrl+C, as a shell reports a SIGINT).
 */
export const EXIT = { ok: 0, failed: 1, usage: 2, interrupted: 130 } as const

/**
 * The command line was wrong (exit 2). `main` reports it: `toolbelt <command>: <message>` on stderr
 * (and as the error of `--json`'s one object), then the command's help, unless `help` is false
 * because the message alone says what to pass (an unknown tool, arguments that are not JSON).
 */
export class UsageError extends Error {
  override readonly name = "UsageError"
  readonly help: boolean

  constructor(message: string, options: { help?: boolean } = {}) {
    super(message)
    this.help = options.help ?? true
  }
}

/**
 * The person ended the command at a prompt (Ctrl+C or Ctrl+D): `main` says so in one line, without a
 * stack, and exits 130.
 */
export class Interrupted extends Error {
  override readonly name = "Interrupted"
}

export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of stream)
    chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer))
  return Buffer.concat(chunks).toString("utf8")
}

/** Streams a `--json` object was written to: `--json` promises exactly one, whatever fails later. */
const answered = new WeakSet<NodeJS.WritableStream>()

export function writeJson(stream: NodeJS.WritableStream, value: unknown): void {
  answered.add(stream)
  stream.write(`${JSON.stringify(value)}\n`)
}

/** Whether a JSON object was already written to `stream` (a later failure then goes to stderr only). */
export function wroteJson(stream: NodeJS.WritableStream): boolean {
  return answered.has(stream)
}
