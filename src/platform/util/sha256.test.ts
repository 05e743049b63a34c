// SHA-256 without node:crypto until it pays: the JavaScript digest is node:crypto's for every length
// and chunking, and a hasher moves to node:crypto past JS_LIMIT without changing its digest. In a fresh
// process, small hashes and random bytes leave node:crypto unloaded; a large one loads it.
import { spawnSync } from "node:child_process"
import { createHash, randomBytes as nodeRandomBytes } from "node:crypto"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { randomByte, randomBytes, randomHex } from "./random.ts"
import { createSha256, JS_LIMIT, sha256Base64url } from "./sha256.ts"
import { sha256Bytes } from "./sha256-js.ts"

const native = (data: string | Uint8Array, encoding: "hex" | "base64url" = "hex") =>
  createHash("sha256").update(data).digest(encoding)

describe("sha256Bytes", () => {
  it("equals node:crypto for every length across the padding boundaries and several blocks", () => {
    for (let length = 0; length <= 300; length++) {
      const data = nodeRandomBytes(length)
      expect(Buffer.from(sha256Bytes(data)).toString("hex"), `length ${length}`).toBe(native(data))
    }
  })

  it("gives the standard's test vectors", () => {
    const hex = (text: string) => Buffer.from(sha256Bytes(Buffer.from(text))).toString("hex")
    expect(hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    expect(hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    expect(hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")).toBe(
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    )
  })
})

describe("createSha256", () => {
  it("hashes strings as UTF-8, in any chunking, as node:crypto does", () => {
    const parts = ["héllo ", "wörld ", "😀", "", "\u0000", "日本語", "x".repeat(100)]
    const hash = createSha256()
    for (const part of parts) hash.update(part)
    expect(hash.digest("hex")).toBe(native(parts.join("")))
    expect(createSha256().update(Buffer.from("abc")).digest("hex")).toBe(native("abc"))
    expect(sha256Base64url("abc")).toBe(native("abc", "base64url"))
    expect(createSha256().update("abc").digest().equals(createHash("sha256").update("abc").digest())).toBe(
      true,
    )
    expect(createSha256().update("abc").digest("base64")).toBe(
      createHash("sha256").update("abc").digest("base64"),
    )
  })

  it("keeps the same digest when the input grows past JS_LIMIT midway", () => {
    const chunks = [
      nodeRandomBytes(JS_LIMIT - 10),
      nodeRandomBytes(50),
      "tail é",
      nodeRandomBytes(3 * JS_LIMIT),
    ]
    const hash = createSha256()
    for (const chunk of chunks) hash.update(chunk)
    const whole = Buffer.concat(
      chunks.map((chunk) => (typeof chunk === "string" ? Buffer.from(chunk) : chunk)),
    )
    expect(hash.digest("hex")).toBe(native(whole))
    const long = "é".repeat(JS_LIMIT)
    expect(createSha256().update(long).digest("hex")).toBe(native(long))
    expect(sha256Base64url(long)).toBe(native(long, "base64url"))
  })

  it("copies a buffer it holds, so a caller reusing it for the next chunk changes nothing", () => {
    const buffer = Buffer.from("first")
    const hash = createSha256().update(buffer)
    buffer.write("other")
    expect(hash.digest("hex")).toBe(native("first"))
  })

  it("refuses a second digest and updates after one", () => {
    const hash = createSha256().update("a")
    hash.digest("hex")
    expect(() => hash.digest("hex")).toThrow(/Digest already called/)
    expect(() => hash.update("b")).toThrow(/Digest already called/)
  })
})

describe("randomBytes", () => {
  it("gives fresh bytes of any size, every byte value, no pool twice", () => {
    expect(randomBytes(0).length).toBe(0)
    expect(randomHex(6)).toMatch(/^[0-9a-f]{12}$/)
    const draws = Array.from({ length: 40 }, () => randomBytes(4096 - 7))
    expect(new Set(draws.map((draw) => draw.toString("hex"))).size).toBe(draws.length)
    const all = Buffer.concat(draws)
    expect(new Set(all).size).toBe(256)
    // ~160 KB of uniform bytes: each value ~625 times; far from it would mean a broken source.
    const counts = new Array<number>(256).fill(0)
    for (const byte of all) counts[byte]!++
    expect(Math.min(...counts)).toBeGreaterThan(400)
    expect(Math.max(...counts)).toBeLessThan(900)
    // A byte at a time from the same pool, across refills: every value, none out of range.
    const single = Array.from({ length: 3 * 4096 }, () => randomByte())
    expect(single.every((byte) => Number.isInteger(byte) && byte >= 0 && byte < 256)).toBe(true)
    expect(new Set(single).size).toBe(256)
  })
})

describe("in a fresh process", () => {
  const here = fileURLToPath(new URL(".", import.meta.url))
  const run = (code: string) => {
    const script = `const before = new Set(process.moduleLoadList)
const { createSha256 } = await import(${JSON.stringify(`${here}sha256.ts`)})
const { randomBytes } = await import(${JSON.stringify(`${here}random.ts`)})
${code}
console.log(process.moduleLoadList.some((m) => !before.has(m) && m === "NativeModule crypto"))`
    const result = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" })
    expect(result.stderr).toBe("")
    return result.stdout.trim().split("\n")
  }

  it("hashes small inputs and draws random bytes without loading node:crypto", () => {
    const [digest, random, loaded] = run(`console.log(createSha256().update("abc").digest("hex"))
console.log(randomBytes(10000).length)`)
    expect(digest).toBe(native("abc"))
    expect(random).toBe("10000")
    expect(loaded).toBe("false")
  })

  it("loads node:crypto for an input past JS_LIMIT", () => {
    const [digest, loaded] = run(
      `console.log(createSha256().update("x".repeat(${JS_LIMIT + 1})).digest("hex"))`,
    )
    expect(digest).toBe(native("x".repeat(JS_LIMIT + 1)))
    expect(loaded).toBe("true")
  })
})
