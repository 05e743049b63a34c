import { describe, expect, it } from "vitest"
import { Kernel } from "./simd.ts"

function reference(hay: Buffer, needle: string, fold: boolean, from: number): number {
  if (!fold) return hay.indexOf(needle, from)
  return hay.toString("latin1").toLowerCase().indexOf(needle.toLowerCase(), from)
}

describe("Kernel", () => {
  it("finds every occurrence exactly as indexOf does, also at the edges of a 32-byte block", () => {
    const kernel = new Kernel(1 << 16)
    const base = kernel.base
    const alphabet = "abAB_x\n"
    let seed = 7
    const random = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff
      return seed
    }
    for (let round = 0; round < 300; round++) {
      const length = random() % 300
      const text = Array.from({ length }, () => alphabet[random() % alphabet.length]).join("")
      const hay = Buffer.from(text, "latin1")
      kernel.bytes.set(hay, base)
      const needleLength = 1 + (random() % 4)
      const needle = Array.from({ length: needleLength }, () => alphabet[random() % 5]).join("")
      for (const fold of [false, true]) {
        kernel.clearNeedles()
        const placed = kernel.needle({ text: fold ? needle.toLowerCase() : needle, fold })!
        let from = 0
        for (;;) {
          const expected = reference(hay, needle, fold, from)
          const found = kernel.find(placed, base + from, base + hay.length)
          expect(found < 0 ? -1 : found - base, `${JSON.stringify(text)} / ${needle} / ${fold}`).toBe(
            expected,
          )
          if (expected < 0) break
          from = expected + 1
        }
      }
    }
  })

  it("folds only ASCII letters", () => {
    const kernel = new Kernel(1024)
    const hay = Buffer.from("x@Y[ `pm_RESUME")
    kernel.bytes.set(hay, kernel.base)
    const folded = kernel.needle({ text: "pm_resume", fold: true })!
    expect(kernel.find(folded, kernel.base, kernel.base + hay.length)).toBe(kernel.base + 6)
    const at = kernel.needle({ text: "`", fold: true })!
    expect(kernel.find(at, kernel.base, kernel.base + hay.length)).toBe(kernel.base + 5)
  })

  it("counts a byte, and grows its memory on demand", () => {
    const kernel = new Kernel(1024)
    kernel.reserve(200_000)
    expect(kernel.capacity).toBeGreaterThanOrEqual(200_000)
    const hay = Buffer.alloc(150_001, "a\n")
    kernel.bytes.set(hay, kernel.base)
    expect(kernel.count(10, kernel.base, kernel.base + hay.length)).toBe(75_000)
    expect(kernel.count(10, kernel.base + 1, kernel.base + 18)).toBe(9)
  })

  it("searches a long literal by its first bytes", () => {
    const kernel = new Kernel(4096)
    const long = "y".repeat(200)
    const placed = kernel.needle({ text: long, fold: false })!
    expect(placed.whole).toBe(false)
    expect(placed.length).toBe(128)
  })
})
