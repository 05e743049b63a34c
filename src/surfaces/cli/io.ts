/** Where a command writes: injectable so commands can be tested in-process as well as as a subprocess. */
export interface IO {
  readonly stdout: NodeJS.WritableStream
  readonly stderr: NodeJS.WritableStream
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean }
  readonly env: NodeJS.ProcessEnv
  readonly cwd: string
}

/**
 * The process's own streams, each made on first use: Node builds a stream object (and loads the stream
 * modules behind it) the first time `process.stdin` is read, a few ms of every start for a command that
 * never reads its input.
 */
export function processIO(): IO {
  return {
    get stdout() {
      return process.stdout
    },
    get stderr() {
      return process.stderr
    },
    get stdin() {
      return process.stdin
    },
    env: process.env,
    cwd: process.cwd(),
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
