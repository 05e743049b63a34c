import { Kernel } from "../search/simd.ts"

const LF = 0x0a

/**
 * Counts line breaks in bulk. Reading a page deep in a large file, or counting a file's lines for the
 * footer, is mostly this: a per-line `Buffer.indexOf` costs ~40 ns a line (0.6 s for a 1 GiB log), while
 * the SIMD kernel counts 16 bytes an instruction group (memory speed). Chunks are read straight into the
 * kernel's memory (`buffers`), so nothing is copied. Where WebAssembly SIMD is missing, the same answer
 * comes from `indexOf`.
 */
export class NewlineCounter {
  /** Buffers to read chunks into: views of the kernel's memory, `chunkBytes` each. */
  readonly buffers: readonly Buffer[]
  readonly #kernel: Kernel | undefined

  /** `simd: false` counts with `indexOf` (what runs where WebAssembly SIMD is missing). */
  constructor(options: { chunkBytes: number; buffers: number; simd?: boolean }) {
    const { chunkBytes, buffers } = options
    this.#kernel = options.simd === false ? undefined : newKernel(chunkBytes * buffers)
    const memory = this.#kernel?.buffer
    this.buffers = Array.from({ length: buffers }, (_, i) =>
      memory
        ? memory.subarray(this.#kernel!.base + i * chunkBytes, this.#kernel!.base + (i + 1) * chunkBytes)
        : Buffer.allocUnsafeSlow(chunkBytes),
    )
  }

  /** Line feeds in `view[start, end)`; `view` is (a subarray of) one of `buffers`. */
  count(view: Buffer, start: number, end: number): number {
    if (end <= start) return 0
    if (this.#kernel && view.buffer === this.#kernel.buffer.buffer)
      return this.#kernel.count(LF, view.byteOffset + start, view.byteOffset + end)
    let found = 0
    for (let at = view.indexOf(LF, start); at !== -1 && at < end; at = view.indexOf(LF, at + 1)) found++
    return found
  }
}

function newKernel(capacity: number): Kernel | undefined {
  try {
    return new Kernel(capacity)
  } catch {
    // No WebAssembly (or no SIMD) on this runtime: count with indexOf.
    return undefined
  }
}
