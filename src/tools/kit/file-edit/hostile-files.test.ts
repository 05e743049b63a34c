// Files an edit must not damage or hang on, driven through the real edit, multiedit and apply_patch:
// binary files, files in other encodings than UTF-8, and FIFOs.

import { execFileSync } from "node:child_process"
import { readFile, writeFile } from "node:fs/promises"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { ApplyPatchTool } from "../../apply_patch/apply_patch.ts"
import { EditTool } from "../../edit/edit.ts"
import { MultiEditTool } from "../../multiedit/multiedit.ts"
import { completed, createHarness, errorOf, type Harness } from "../fixtures/harness.ts"

let h: Harness

beforeEach(async () => {
  h = await createHarness({ edit: EditTool, multiedit: MultiEditTool, apply_patch: ApplyPatchTool })
})

afterEach(async () => {
  await h.close()
})

/** The three ways to replace `from` with `to` in `path`. */
const editors: Record<string, (path: string, from: string, to: string) => [string, unknown]> = {
  edit: (path, from, to) => ["edit", { filePath: path, oldString: from, newString: to }],
  multiedit: (path, from, to) => [
    "multiedit",
    { filePath: path, edits: [{ oldString: from, newString: to }] },
  ],
  apply_patch: (path, from, to) => [
    "apply_patch",
    { patchText: `*** Begin Patch\n*** Update File: ${path}\n@@\n-${from}\n+${to}\n*** End Patch` },
  ],
}

const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d]),
  Buffer.from("IHDR\nname\n\xff\xfe\x00tail\n", "latin1"),
])
const ELF = Buffer.concat([
  Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00]),
  Buffer.from("\nname\n"),
])

describe("binary files are refused, byte for byte untouched", () => {
  for (const [kind, content] of [
    ["PNG", PNG],
    ["ELF", ELF],
  ] as const) {
    for (const [tool, make] of Object.entries(editors)) {
      it(`${tool} on a ${kind}`, async () => {
        await writeFile(h.path("file.bin"), content)
        const [name, input] = make("file.bin", "name", "NAME")
        expect(errorOf(await h.call(name, input))).toMatch(
          /binary file.*editing it as text would corrupt it/s,
        )
        expect((await readFile(h.path("file.bin"))).equals(content)).toBe(true)
        expect(h.asks.filter((ask) => ask.permission === "edit")).toEqual([])
      })
    }
  }

  it("apply_patch may still delete a binary file whole", async () => {
    await writeFile(h.path("image.png"), PNG)
    const patch = "*** Begin Patch\n*** Delete File: image.png\n*** End Patch"
    completed(await h.call("apply_patch", { patchText: patch }))
    await expect(readFile(h.path("image.png"))).rejects.toThrow(/ENOENT/)
  })
})

describe("a file keeps its encoding: only the edited bytes change", () => {
  const latin1 = Buffer.from("caf\xe9 = 1\nna\xefve = 2\n\xa9 2024\n", "latin1")
  const expected = Buffer.from("caf\xe9 = 1\nna\xefve = 3\n\xa9 2024\n", "latin1")

  for (const [tool, make] of Object.entries(editors)) {
    it(`${tool} on a latin-1 file`, async () => {
      await writeFile(h.path("latin.txt"), latin1)
      const [name, input] = make("latin.txt", "naïve = 2", "naïve = 3")
      completed(await h.call(name, input))
      expect(await readFile(h.path("latin.txt"))).toEqual(expected)
    })

    it(`${tool} on a windows-1252 file writes new characters in windows-1252`, async () => {
      await writeFile(h.path("cp.txt"), Buffer.from([0x93, 0x61, 0x94, 0x0a, 0x78, 0x0a]))
      const [name, input] = make("cp.txt", "x", "5 €")
      completed(await h.call(name, input))
      expect([...(await readFile(h.path("cp.txt")))]).toEqual([
        0x93, 0x61, 0x94, 0x0a, 0x35, 0x20, 0x80, 0x0a,
      ])
    })

    it(`${tool} refuses a character the file's encoding cannot hold, naming the encoding`, async () => {
      await writeFile(h.path("latin.txt"), latin1)
      const [name, input] = make("latin.txt", "naïve = 2", "naïve = 😀")
      expect(errorOf(await h.call(name, input))).toMatch(/U\+1F600.*windows-1252 \(latin-1\)/)
      expect(await readFile(h.path("latin.txt"))).toEqual(latin1)
    })

    it(`${tool} on a UTF-16 LE file with BOM`, async () => {
      const utf16 = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")])
      await writeFile(h.path("wide.txt"), utf16("héllo\r\nworld\r\n"))
      const [name, input] = make("wide.txt", "world", "wörld")
      completed(await h.call(name, input))
      expect(await readFile(h.path("wide.txt"))).toEqual(utf16("héllo\r\nwörld\r\n"))
    })

    it(`${tool} on a UTF-16 BE file with BOM`, async () => {
      const utf16 = (text: string) =>
        Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, "utf16le").swap16()])
      await writeFile(h.path("wide.txt"), utf16("a\nb\n"))
      const [name, input] = make("wide.txt", "b", "c")
      completed(await h.call(name, input))
      expect(await readFile(h.path("wide.txt"))).toEqual(utf16("a\nc\n"))
    })

    it(`${tool} on a UTF-8 file with BOM`, async () => {
      await writeFile(h.path("bom.txt"), Buffer.from("\uFEFFé\nx\n", "utf8"))
      const [name, input] = make("bom.txt", "x", "y")
      completed(await h.call(name, input))
      expect(await readFile(h.path("bom.txt"))).toEqual(Buffer.from("\uFEFFé\ny\n", "utf8"))
    })

    it(`${tool} refuses a file that mixes UTF-8 with other bytes, naming what it found`, async () => {
      const mixed = Buffer.concat([Buffer.from("café\nx\n", "utf8"), Buffer.from([0xe9, 0x0a])])
      await writeFile(h.path("mixed.txt"), mixed)
      const [name, input] = make("mixed.txt", "x", "y")
      expect(errorOf(await h.call(name, input))).toMatch(/mixes UTF-8 with bytes that are not UTF-8/)
      expect(await readFile(h.path("mixed.txt"))).toEqual(mixed)
    })
  }

  it("apply_patch moving a latin-1 file keeps its bytes", async () => {
    await writeFile(h.path("latin.txt"), latin1)
    const patch =
      "*** Begin Patch\n*** Update File: latin.txt\n*** Move to: moved.txt\n@@\n-naïve = 2\n+naïve = 3\n*** End Patch"
    completed(await h.call("apply_patch", { patchText: patch }))
    expect(await readFile(h.path("moved.txt"))).toEqual(expected)
  })
})

describe("FIFOs and other special files are refused before they are opened", () => {
  for (const [tool, make] of Object.entries(editors)) {
    it(`${tool} on a FIFO returns at once with a clear error`, async () => {
      execFileSync("mkfifo", [h.path("pipe")])
      const [name, input] = make("pipe", "a", "b")
      expect(errorOf(await h.call(name, input))).toMatch(/named pipe \(FIFO\), not a regular file/)
    })
  }

  it("edit with an empty oldString on a FIFO does not replace it", async () => {
    execFileSync("mkfifo", [h.path("pipe")])
    expect(errorOf(await h.call("edit", { filePath: "pipe", oldString: "", newString: "x" }))).toMatch(/FIFO/)
  })
})

describe("an oldString copied from a UTF-8 view of a latin-1 file", () => {
  for (const tool of ["edit", "multiedit"]) {
    it(`${tool} says the file's encoding and how to write the characters`, async () => {
      await writeFile(h.path("latin.txt"), Buffer.from("caf\xe9 = 1\n", "latin1"))
      const [name, input] = editors[tool]!("latin.txt", "caf\uFFFD = 1", "caf\uFFFD = 2")
      expect(errorOf(await h.call(name, input))).toMatch(
        /The file is windows-1252 \(latin-1\), not UTF-8, and oldString contains U\+FFFD/,
      )
    })
  }
})
