import { describe, expect, it } from "vitest"
import { ByteRing, charStart, countNewlineBytes } from "./ring.ts"

const b = (text: string) => Buffer.from(text)

describe("ByteRing", () => {
  it("holds everything while it fits", () => {
    const ring = new ByteRing(8)
    ring.write(b("abc"))
    ring.write(b("de"))
    expect(ring.read().toString()).toBe("abcde")
    expect([ring.start, ring.end, ring.length]).toEqual([0, 5, 5])
  })

  it("evicts the oldest bytes, in order, and wraps", () => {
    const ring = new ByteRing(5)
    const evicted: string[] = []
    for (const piece of ["abc", "def", "gh", "ijklm"]) ring.write(b(piece), (p) => evicted.push(p.toString()))
    expect(evicted.join("")).toBe("abcdefgh")
    expect(ring.read().toString()).toBe("ijklm")
    expect([ring.start, ring.end]).toEqual([8, 13])
  })

  it("takes a chunk larger than itself, evicting what it held and the chunk's head", () => {
    const ring = new ByteRing(4)
    const evicted: string[] = []
    ring.write(b("xy"), (p) => evicted.push(p.toString()))
    ring.write(b("0123456789"), (p) => evicted.push(p.toString()))
    expect(evicted.join("")).toBe("xy012345")
    expect(ring.read().toString()).toBe("6789")
    expect([ring.start, ring.end]).toEqual([8, 12])
    ring.write(b("ab"))
    expect(ring.read().toString()).toBe("89ab")
    expect(ring.read(12).toString()).toBe("ab")
  })

  it("grows from its initial size to its capacity, keeping the bytes in order", () => {
    const ring = new ByteRing(100_000)
    const evicted: Buffer[] = []
    const all: Buffer[] = []
    for (let i = 0; i < 1000; i++) {
      const chunk = Buffer.from(`${i}:`.padEnd(1 + (i % 700), String.fromCharCode(97 + (i % 26))))
      all.push(chunk)
      ring.write(chunk, (piece) => evicted.push(Buffer.from(piece)))
    }
    const whole = Buffer.concat(all)
    expect(ring.length).toBe(100_000)
    expect(ring.read().equals(whole.subarray(whole.length - 100_000))).toBe(true)
    expect(Buffer.concat(evicted).equals(whole.subarray(0, whole.length - 100_000))).toBe(true)
  })
})

describe("charStart and countNewlineBytes", () => {
  it("skips continuation bytes and counts newlines", () => {
    const bytes = b("éa")
    expect(charStart(bytes.subarray(1))).toBe(1)
    expect(charStart(bytes)).toBe(0)
    expect(countNewlineBytes(b("a\nb\n\n"))).toBe(3)
  })
})
