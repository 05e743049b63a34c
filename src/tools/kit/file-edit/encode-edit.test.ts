import { describe, expect, it } from "vitest"
import { encodeEdit } from "./encode-edit.ts"

const file = (data: Buffer, text: string, encoding: "utf-8" | "windows-1252" = "utf-8", bom = false) =>
  ({ kind: "file", data, text, bom, encoding }) as const

describe("encodeEdit", () => {
  it("encodes an edit of a file in the file's own encoding", () => {
    const data = Buffer.from("caf\xe9\nx\n", "latin1")
    const bytes = encodeEdit({
      existing: file(data, "café\nx\n", "windows-1252"),
      text: "café\ny\n",
      shown: "f",
    })
    expect(bytes).toEqual(Buffer.from("caf\xe9\ny\n", "latin1"))
  })

  it("refuses when the text it was given does not stand for the bytes on disk outside the edit", () => {
    // A lossy decoding (the invalid byte read as U+FFFD) would rewrite the untouched first line.
    const data = Buffer.from("caf\xe9\nx\n", "latin1")
    expect(() =>
      encodeEdit({ existing: file(data, "caf\uFFFD\nx\n"), text: "caf\uFFFD\ny\n", shown: "f" }),
    ).toThrow(
      /bytes outside the edited region would differ from what is on disk \(the file is read as UTF-8\)\. Nothing was written/,
    )
  })

  it("refuses a lossy tail as well as a lossy head", () => {
    const data = Buffer.from("x\ncaf\xe9\n", "latin1")
    expect(() =>
      encodeEdit({ existing: file(data, "x\ncaf\uFFFD\n"), text: "y\ncaf\uFFFD\n", shown: "f" }),
    ).toThrow(/outside the edited region/)
  })

  it("keeps a surrogate pair whole at the edge of the edit", () => {
    const data = Buffer.from("😀a", "utf8")
    expect(encodeEdit({ existing: file(data, "😀a"), text: "😁a", shown: "f" })).toEqual(
      Buffer.from("😁a", "utf8"),
    )
  })

  it("keeps the byte order mark, and a new file is UTF-8 with one when the text starts with U+FEFF", () => {
    const data = Buffer.from("\uFEFFa", "utf8")
    expect(encodeEdit({ existing: file(data, "a", "utf-8", true), text: "b", shown: "f" })).toEqual(
      Buffer.from("\uFEFFb", "utf8"),
    )
    expect(encodeEdit({ existing: { kind: "missing" }, text: "\uFEFFnew", shown: "f" })).toEqual(
      Buffer.from("\uFEFFnew", "utf8"),
    )
  })
})
