import { createHash } from "node:crypto"
import { describe, expect, it } from "vitest"
import {
  digestedTexts,
  MASKED_CHARS,
  maskEveryPattern,
  maskedDigest,
  maskedTexts,
  maskNoise,
} from "./noise.ts"

const same = (a: string, b: string) => expect(maskNoise(a), `${a} / ${b}`).toBe(maskNoise(b))
const differ = (a: string, b: string) => expect(maskNoise(a), `${a} / ${b}`).not.toBe(maskNoise(b))

describe("maskNoise", () => {
  it("durations in their usual spellings", () => {
    same("FAIL in 9728 ms", "FAIL in 31983 ms")
    same("Tests: 1 failed (0.53s)", "Tests: 1 failed (1.07s)")
    same("Duration  1.23s (transform 10ms, setup 0ms)", "Duration  2.5s (transform 12ms, setup 1ms)")
    same("Time: 1.2 s", "Time: 3.4 s")
    same("real\t0m0.003s", "real\t0m1.250s")
    same("took 3 seconds", "took 12 seconds")
    same("elapsed 00:01:23", "elapsed 00:02:05")
    same("Finished in 1m30s", "Finished in 2m5s")
  })

  it("timestamps, dates and clock times", () => {
    same("at 2026-11-29T05:58:13.123Z", "at 2026-11-30T06:01:02.999Z")
    same("Sun Nov 29 05:58:13 UTC 2026", "Mon Nov 30 06:00:00 UTC 2026")
    same("[12:01:02] build failed", "[12:03:59] build failed")
    same("started 1764395893", "started 1764396000")
    // A file's line and column is no clock.
    differ("src/a.ts:12:50 error", "src/a.ts:12:51 error")
  })

  it("PIDs, temp paths and random ids", () => {
    same("killed pid 1234", "killed pid 98765")
    same("PID: 77", "PID: 78")
    same("wrote /tmp/toolbelt-abc123/out.txt", "wrote /tmp/toolbelt-zzz999/out.txt")
    same("in /var/folders/x1/ab_cd/T/tmp.AbC123/x", "in /var/folders/x1/ab_cd/T/tmp.ZyX987/x")
    same(
      "request 3f2a9c1e-1b2c-4d5e-8f90-123456789abc failed",
      "request 0a0b0c0d-1111-2222-3333-444455556666 failed",
    )
    same("commit a1b2c3d4e5f6", "commit 0f9e8d7c6b5a")
    same("object at 0x7ffd4a3b2c10", "object at 0x7ffd4a3b9e20")
  })

  it("keeps what really changed", () => {
    differ("FAIL: 2 tests failed", "FAIL: 3 tests failed")
    differ("line one\n", "line one\nline two\n")
    differ("/tmp/x/a.txt", "/tmp/x/b.txt")
    differ("process 3 files", "process 4 files")
    differ("size 12345678 bytes", "size 12345679 bytes")
    differ("deadbeefcafe", "cafebabedead")
  })

  it("masks a large answer in bounded time: its ends when it is huge", () => {
    const big = "x".repeat(400_000) + "\nFAIL in 12 ms\n" + "a1".repeat(200_000)
    expect(maskNoise(big)).toContain("FAIL in \u0000duration\u0000")
    const lines = (ms: number) => `done in ${ms} ms\n${"line\n".repeat(MASKED_CHARS)}done in ${ms} ms\n`
    same(lines(1), lines(2))
    differ(`${lines(1)}more\n`, lines(1))
  })
})

describe("the tests that skip patterns", () => {
  // Pieces that each make some pattern match, or almost: a pattern may be skipped only when it would
  // change nothing, so masking equals trying every pattern.
  const pieces = [
    "12:34:56",
    "1:23 PM",
    "9:05am",
    "3/14/2026",
    "12/1/99",
    "2026-11-29T05:58:13.123Z",
    "2026-11-29",
    "Sun Nov 29 05:58:13 UTC 2026",
    "29 Nov 2026",
    "Nov 29, 2026",
    "1764392293",
    "1764392293123",
    "0.53s",
    "12ms",
    "1.2 s",
    "3 seconds",
    "1m30s",
    "7\u00a0h",
    "5\tµs",
    "took 5",
    "Time: 1.2",
    "elapsed 00:01:23",
    "pid 1234",
    "PID: 99",
    "process 12345",
    "process 3 files",
    "/tmp/tmp.AbC123/x",
    "tmp-1234-abcd",
    "550e8400-e29b-41d4-a716-446655440000",
    "12345678-1234-1234-1234-123456789012",
    "deadbeef",
    "12345678",
    "0xDEADBEEF1",
    "a1b2c3d4e5",
    "cafe1234",
    "a.ts:12:50",
    "v1.2.3",
    "x9",
    "9",
    ":",
    "/",
    " ",
    "\n",
    "abc",
    "m",
    "s",
    "1",
    "12",
    "123",
    "1234567",
  ]
  it("masks as trying every pattern does, whatever the text", () => {
    for (const piece of pieces) expect(maskNoise(`<${piece}>`)).toBe(maskEveryPattern(`<${piece}>`))
    // Random texts from the pieces and single characters around them.
    let seed = 7
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648
      return seed % n
    }
    const glue = ["", " ", ":", "/", "-", ".", ",", "0", "7", "a", "F", "x", "\n", "\t"]
    for (let round = 0; round < 3000; round++) {
      let text = ""
      for (let k = next(6) + 1; k > 0; k--) text += glue[next(glue.length)]! + pieces[next(pieces.length)]!
      expect(maskNoise(text)).toBe(maskEveryPattern(text))
    }
  })
})

describe("maskedDigest", () => {
  it("is the digest of the masked text, the same for answers that differ only in noise", () => {
    const page = (ms: number) => `${"export const x = 1\n".repeat(2000)}took ${ms}ms\n`
    const expected = createHash("sha256")
      .update(maskNoise(page(12)))
      .digest("base64url")
    expect(maskedDigest(page(12))).toBe(expected)
    // Asked again (the answer kept), and for a copy with other noise: the same.
    expect(maskedDigest(page(12))).toBe(expected)
    expect(maskedDigest(page(345))).toBe(expected)
    expect(maskedDigest(`${page(12)}one more line\n`)).not.toBe(expected)
  })

  it("does not mask again a text read before, also after more texts than it keeps whole", () => {
    // 24 files of 40 KB read in turn: more than the texts kept whole (texts and masks, 1 MiB).
    const files = Array.from(
      { length: 24 },
      (_, n) => `// file ${n} at 12:00:0${n % 10}\n${"const a = 1\n".repeat(3500)}`,
    )
    const first = files.map((file) => maskedDigest(file))
    const before = maskedTexts()
    const again = files.map((file) => maskedDigest(`${file}`.slice(0)))
    expect(again).toEqual(first)
    expect(maskedTexts()).toBe(before)
    // What it remembers is by content: a changed file is masked anew, and its digest differs.
    expect(maskedDigest(`${files[3]}more\n`)).not.toBe(first[3])
    expect(maskedTexts()).toBe(before + 1)
  })

  it("does not hash again a text answered before, also after a burst of other texts let it go", () => {
    // An MCP server's warm-up reads fill what is kept whole; a 40 KB page read again and again after
    // it was hashed on every call to be found. Now the second time finds it by its text.
    const page = `// kept at 12:00:01\n${"const b = 2\n".repeat(3400)}`
    const digest = maskedDigest(page)
    for (let n = 0; n < 90; n++) maskedDigest(`// burst ${n}\n${"let c = 3\n".repeat(1200)}`)
    const before = digestedTexts()
    expect(maskedDigest(`${page}`.slice(0))).toBe(digest) // found by the digest of its text: one hash
    expect(digestedTexts()).toBe(before + 1)
    for (let n = 0; n < 5; n++) expect(maskedDigest(page)).toBe(digest)
    expect(digestedTexts()).toBe(before + 1)
  })
})
