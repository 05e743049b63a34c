import { writeSync } from "node:fs"

/**
 * The process's stdout for a command that only writes to it: each write goes straight to descriptor 1
 * (writeSync), without building `process.stdout`, which for a pipe is a net.Socket and loads the stream
 * modules (~6 ms of a `toolbelt call` whose output is piped, as an agent's is). Anything else asked of
 * it (`on`, `isTTY`, `columns`, its prototype, being handed to a transport), a write that would block (a descriptor
 * left non-blocking) or fail (EPIPE) goes to the real `process.stdout` from then on, so Node's own
 * behaviour applies. Writes stay in order: a direct write is complete when it returns.
 */
export function directStdout(): NodeJS.WritableStream {
  let real: NodeJS.WritableStream | undefined
  const stream = (): NodeJS.WritableStream => {
    real ??= process.stdout
    return real
  }
  const write = (
    chunk: string | Uint8Array,
    encoding?: BufferEncoding | ((error?: Error | null) => void),
    callback?: (error?: Error | null) => void,
  ): boolean => {
    const done = typeof encoding === "function" ? encoding : callback
    const charset = typeof encoding === "string" ? encoding : "utf8"
    if (real) return typeof chunk === "string" ? real.write(chunk, charset, done) : real.write(chunk, done)
    let bytes = typeof chunk === "string" ? Buffer.from(chunk, charset) : chunk
    try {
      while (bytes.length > 0) bytes = bytes.subarray(writeSync(1, bytes))
    } catch {
      // EAGAIN (a non-blocking pipe is full), EPIPE, anything: the real stream takes the rest and
      // handles it as Node does.
      return stream().write(bytes, done)
    }
    if (done) process.nextTick(done)
    return true
  }
  return new Proxy({} as NodeJS.WritableStream, {
    get(_, key) {
      if (key === "write") return write
      const target = stream()
      const value = Reflect.get(target, key, target)
      return typeof value === "function" ? value.bind(target) : value
    },
    set(_, key, value) {
      return Reflect.set(stream(), key, value)
    },
    has(_, key) {
      return key in stream()
    },
    // `instanceof` sees the real stream (a transport tells a pipe's net.Socket from other streams).
    getPrototypeOf() {
      return Object.getPrototypeOf(stream())
    },
  })
}
