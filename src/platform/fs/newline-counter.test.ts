import { describe, expect, test } from "vitest"
import { NewlineCounter } from "./newline-counter.ts"

/** Line feeds in `bytes[start, end)`, one at a time. */
function reference(bytes: Buffer, start: number, end: number): number {
  let found = 0
  for (let i = start; i < end; i++) if (bytes[i] === 0x0a) found++
  return found
}

describe("NewlineCounter", () => {
  const chunkBytes = 1 << 16
  const simd = new NewlineCounter({ chunkBytes, buffers: 2 })
  const plain = new NewlineCounter({ chunkBytes, buffers: 2, simd: false })

  test("gives two separate buffers of the chunk size", () => {
    for (const counter of [simd, plain]) {
      expect(counter.buffers.map((buffer) => buffer.length)).toEqual([chunkBytes, chunkBytes])
      counter.buffers[0]!.fill(1)
      counter.buffers[1]!.fill(2)
      expect(counter.buffers[0]!.every((byte) => byte === 1)).toBe(true)
    }
  })

  test("counts line feeds in any range, at any alignment, as a byte-by-byte count does", () => {
    let seed = 7
    const random = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
      return seed / 2 ** 32
    }
    for (const counter of [simd, plain]) {
      for (const buffer of counter.buffers) {
        // Mostly text, with runs of line feeds and bytes one off from them (0x0b, 0x09, 0x8a).
        for (let i = 0; i < buffer.length; i++) {
          const r = random()
          buffer[i] = r < 0.1 ? 0x0a : r < 0.12 ? 0x0b : r < 0.14 ? 0x09 : r < 0.16 ? 0x8a : 0x61
        }
        for (let k = 0; k < 200; k++) {
          const start = Math.floor(random() * buffer.length)
          const end = start + Math.floor(random() * (buffer.length - start + 1))
          expect(counter.count(buffer, start, end)).toBe(reference(buffer, start, end))
        }
        expect(counter.count(buffer, 0, buffer.length)).toBe(reference(buffer, 0, buffer.length))
        expect(counter.count(buffer, 5, 5)).toBe(0)
        expect(counter.count(buffer, 9, 3)).toBe(0)
        // A subarray of a buffer counts in its own coordinates.
        const view = buffer.subarray(1000, 3000)
        expect(counter.count(view, 17, 1999)).toBe(reference(buffer, 1017, 2999))
      }
    }
  })

  test("counts a buffer that is not its own (with indexOf)", () => {
    const other = Buffer.from("a\nb\n\nc")
    expect(simd.count(other, 0, other.length)).toBe(3)
    expect(simd.count(other, 2, 4)).toBe(1)
  })
})
