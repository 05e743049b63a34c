import { createHash } from "node:crypto"
import { chmod, mkdir, readdir, readFile, rm, stat, symlink, utimes, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { beforeEach, describe, expect, it } from "vitest"
import { LEDGER_HASH_MAX_BYTES } from "../../platform/fs/read-ledger.ts"
import { agentRules } from "../../runtime/permission/agents/agent.ts"
import { PermissionEngine } from "../../runtime/permission/engine.ts"
import { MemoryApprovalStore } from "../../runtime/permission/memory-approvals.ts"
import { RulePermissions } from "../../runtime/permission/simple.ts"
import { askOutside, type CallOptions, completed, errorOf, useHarness } from "../kit/fixtures/harness.ts"
import { ReadTool } from "../read/read.ts"
import { WriteTool } from "./write.ts"

const h = useHarness({ write: WriteTool, read: ReadTool }, { sessionID: "ses_write" })

const write = (filePath: string, content: string, options?: CallOptions) =>
  h.call("write", { filePath, content }, options)
const read = (filePath: string, options?: CallOptions) => h.call("read", { filePath }, options)

const sha256 = (content: string | Buffer) => createHash("sha256").update(content).digest("hex")

describe("new files", () => {
  it("creates the file, and reports the diff, counts, title and file.edited", async () => {
    const file = h.path("hello.ts")
    const result = completed(await write(file, "export const a = 1\nexport const b = 2\n"))
    expect(await readFile(file, "utf8")).toBe("export const a = 1\nexport const b = 2\n")
    expect(result.output).toBe("Wrote file successfully.")
    expect(result.title).toBe("hello.ts")
    expect(result.metadata).toMatchObject({ exists: false, filepath: file, additions: 2, deletions: 0 })
    expect(result.metadata.diff).toContain("@@ -0,0 +1,2 @@\n+export const a = 1\n+export const b = 2\n")
    expect(h.events).toEqual([{ type: "file.edited", properties: { file, sessionID: "ses_write" } }])
  })

  it("creates missing parent directories", async () => {
    const file = h.path("a", "b", "c", "deep.txt")
    completed(await write(file, "deep"))
    expect(await readFile(file, "utf8")).toBe("deep")
  })

  it("resolves a relative path against the project", async () => {
    const result = completed(await write("src/rel.ts", "x"))
    expect(await readFile(h.path("src", "rel.ts"), "utf8")).toBe("x")
    expect(result.title).toBe("src/rel.ts")
    expect(result.metadata.filepath).toBe(h.path("src", "rel.ts"))
  })

  it("writes empty content, JSON and unicode exactly", async () => {
    const cases: [string, string][] = [
      ["empty.txt", ""],
      ["data.json", `${JSON.stringify({ a: [1, 2], b: { c: "d" } }, null, 2)}\n`],
      ["unicode.md", "héllo wörld — ✓ 日本語 🎉\n"],
    ]
    for (const [name, content] of cases) {
      completed(await write(name, content))
      expect(await readFile(h.path(name), "utf8")).toBe(content)
    }
  })

  it("asks `edit` with the relative path, always *, and the diff", async () => {
    const file = h.path("src", "asked.ts")
    completed(await write(file, "a\n"))
    expect(h.asks).toHaveLength(1)
    expect(h.asks[0]).toMatchObject({ permission: "edit", patterns: ["src/asked.ts"], always: ["*"] })
    expect(h.asks[0]!.metadata).toEqual({ filepath: file, diff: expect.stringContaining("+a") })
  })

  it("writes nothing when `edit` is denied (plan agent)", async () => {
    const permission = new PermissionEngine({
      projectID: h.directory,
      rules: agentRules({
        dataDir: join(h.root, "data"),
        tmpDir: join(h.root, "tmp"),
        directory: h.directory,
      }),
      approvals: new MemoryApprovalStore(),
    })
    const error = errorOf(await write("src/plan.ts", "nope", { permission, agent: "plan" }))
    expect(error).toMatch(
      /^The user has specified a rule which prevents you from using this specific tool call/,
    )
    await expect(stat(h.path("src", "plan.ts"))).rejects.toThrow()
  })
})

describe("overwriting", () => {
  let file: string
  beforeEach(async () => {
    file = h.path("existing.ts")
    await writeFile(file, "const old = 1\n")
  })

  it("requires that the session read the file first", async () => {
    const error = errorOf(await write(file, "const fresh = 2\n"))
    expect(error).toBe(`You must read the file ${file} before overwriting it. Use the read tool first.`)
    expect(await readFile(file, "utf8")).toBe("const old = 1\n")
    expect(h.asks).toEqual([])
    expect(h.events).toEqual([])
  })

  it("overwrites a file the session read, with the diff of the change", async () => {
    completed(await read(file))
    const result = completed(await write(file, "const fresh = 2\nconst more = 3\n"))
    expect(await readFile(file, "utf8")).toBe("const fresh = 2\nconst more = 3\n")
    expect(result.metadata).toMatchObject({ exists: true, additions: 2, deletions: 1 })
    expect(result.metadata.diff).toContain("-const old = 1\n+const fresh = 2\n+const more = 3\n")
  })

  it("refuses when the file changed since the session read it", async () => {
    completed(await read(file))
    await writeFile(file, "const changed = 9\n")
    const error = errorOf(await write(file, "const fresh = 2\n"))
    expect(error).toMatch(new RegExp(`^The file ${file} was modified since it was last read`))
    expect(error).toContain("Read it again before writing.")
    expect(await readFile(file, "utf8")).toBe("const changed = 9\n")
    completed(await read(file))
    completed(await write(file, "const fresh = 2\n"))
  })

  it("a file over 16 MiB is known by its identity: read then write works, a same-size rewrite is caught", async () => {
    const big = h.path("big.log")
    const line = "2026-11-25T04:00:00Z INFO request served in 12ms\n"
    const text = line.repeat(Math.ceil((LEDGER_HASH_MAX_BYTES + 1024) / line.length))
    await writeFile(big, text)
    completed(await read(big))
    const entry = h.ledger.get("ses_write", big)
    expect(entry?.hash).toMatch(/^stat:/)
    expect(entry?.size).toBe(Buffer.byteLength(text))

    // Rewritten by someone else with the same size: the identity changed, so the write is refused.
    await writeFile(big, text.replace("INFO", "WARN"))
    expect(errorOf(await write(big, "short\n"))).toMatch(new RegExp(`^The file ${big} was modified since`))
    expect((await stat(big)).size).toBe(Buffer.byteLength(text))

    completed(await read(big))
    completed(await write(big, "short\n"))
    expect(await readFile(big, "utf8")).toBe("short\n")
  })

  it("a read in another session does not count", async () => {
    completed(await read(file, { sessionID: "ses_other" }))
    expect(errorOf(await write(file, "x"))).toMatch(/^You must read the file/)
  })

  it("a session that wrote the file may write it again", async () => {
    completed(await read(file))
    completed(await write(file, "one\n"))
    completed(await write(file, "two\n"))
    expect(await readFile(file, "utf8")).toBe("two\n")
    expect(h.ledger.get("ses_write", file)?.hash).toBe(sha256("two\n"))
  })

  it("a file this session created counts as read", async () => {
    const created = h.path("created.txt")
    completed(await write(created, "v1"))
    completed(await write(created, "v2"))
    expect(await readFile(created, "utf8")).toBe("v2")
  })

  it("needs no read when requireRead is off", async () => {
    const result = completed(await write(file, "const free = 3\n", { extra: { requireRead: false } }))
    expect(result.metadata.exists).toBe(true)
    expect(await readFile(file, "utf8")).toBe("const free = 3\n")
  })

  it("may replace a small binary file once the session tried to read it", async () => {
    const binary = h.path("blob.bin")
    await writeFile(binary, Buffer.from([0, 1, 2, 3]))
    expect(errorOf(await read(binary))).toBe(`Cannot read binary file: ${binary}`)
    const result = completed(await write(binary, "now text\n"))
    expect(result.metadata).toMatchObject({ exists: true, diffOmitted: "the old content is binary" })
    expect(await readFile(binary, "utf8")).toBe("now text\n")
  })

  it("refuses a directory", async () => {
    await mkdir(h.path("adir"))
    expect(errorOf(await write("adir", "x"))).toBe(
      `Cannot write ${h.path("adir")}: it is a directory, not a file. Give the path of a file.`,
    )
  })

  it("refuses a path under a file", async () => {
    const error = errorOf(await write(join(file, "child.txt"), "x"))
    expect(error).toContain(`${file} is a file, not a directory`)
  })

  it("writes through a symlink to its target, keeping the link", async () => {
    await symlink(file, h.path("link.ts"))
    completed(await read(h.path("link.ts")))
    completed(await write(h.path("link.ts"), "through the link\n"))
    expect(await readFile(file, "utf8")).toBe("through the link\n")
    expect((await readdir(h.directory)).sort()).toEqual(["existing.ts", "link.ts"])
  })
})

describe("bytes on disk", () => {
  it("keeps the BOM the old file had", async () => {
    const file = h.path("bom.cs")
    await writeFile(file, "\uFEFFclass A {}\n")
    completed(await read(file))
    const result = completed(await write(file, "class B {}\n"))
    expect(await readFile(file)).toEqual(Buffer.from("\uFEFFclass B {}\n"))
    expect(result.metadata.diff).not.toContain("\uFEFF")
    expect(result.metadata.diff).toContain("-class A {}\n+class B {}\n")
  })

  it("keeps a BOM the new content has, once", async () => {
    const file = h.path("bom-new.txt")
    completed(await write(file, "\uFEFFhello\n"))
    expect(await readFile(file)).toEqual(Buffer.from("\uFEFFhello\n"))
    completed(await write(file, "\uFEFFagain\n"))
    expect(await readFile(file)).toEqual(Buffer.from("\uFEFFagain\n"))
  })

  it("writes line endings exactly as given", async () => {
    const cases: [string, string][] = [
      ["crlf.txt", "a\r\nb\r\nc\r\n"],
      ["lf.txt", "a\nb\nc\n"],
      ["mixed.txt", "a\r\nb\nc\r\n"],
      ["no-final-newline.txt", "a\nb"],
    ]
    for (const [name, content] of cases) {
      completed(await write(name, content))
      expect(await readFile(h.path(name))).toEqual(Buffer.from(content))
    }
    // Overwriting a CRLF file with LF content writes LF: the content is the model's to decide.
    completed(await write("crlf.txt", "x\ny\n"))
    expect(await readFile(h.path("crlf.txt"), "utf8")).toBe("x\ny\n")
  })

  it("keeps the mode of an existing file (0644 and 0755)", async () => {
    for (const mode of [0o644, 0o755]) {
      const file = h.path(`mode-${mode.toString(8)}.sh`)
      await writeFile(file, "#!/bin/sh\n")
      await chmod(file, mode)
      completed(await read(file))
      completed(await write(file, "#!/bin/sh\necho hi\n"))
      expect((await stat(file)).mode & 0o777).toBe(mode)
    }
  })

  it("creates a new file with mode 0644 (less the umask)", async () => {
    const file = h.path("new-mode.txt")
    completed(await write(file, "x"))
    const umask = process.umask()
    expect((await stat(file)).mode & 0o777).toBe(0o644 & ~umask)
  })

  it("leaves no temp files behind", async () => {
    completed(await write("clean.txt", "x"))
    expect(await readdir(h.directory)).toEqual(["clean.txt"])
  })
})

describe("external_directory", () => {
  it("asks for the parent directory of a file outside the project, and writes nothing when rejected", async () => {
    const file = join(h.outside, "new", "out.txt")
    const error = errorOf(await write(file, "x", { permission: askOutside() }))
    expect(error).toBe("The user rejected permission to use this specific tool call.")
    expect(h.asks).toEqual([
      expect.objectContaining({ permission: "external_directory", patterns: [join(h.outside, "new", "*")] }),
    ])
    await expect(stat(join(h.outside, "new"))).rejects.toThrow()
  })

  it("writes outside once approved, asking external_directory before edit", async () => {
    const file = join(h.outside, "out.txt")
    completed(await write(file, "x", { permission: askOutside(async () => "once") }))
    expect(h.asks.map((ask) => ask.permission)).toEqual(["external_directory", "edit"])
    expect(await readFile(file, "utf8")).toBe("x")
  })

  it("asks for a symlinked directory in the project that points outside", async () => {
    await symlink(h.outside, h.path("linked"))
    errorOf(await write("linked/file.txt", "x", { permission: askOutside() }))
    expect(h.asks[0]).toMatchObject({ permission: "external_directory", patterns: [join(h.outside, "*")] })
  })
})

describe("aborts", () => {
  it("an aborted call writes nothing", async () => {
    const controller = new AbortController()
    controller.abort()
    const result = await write("aborted.txt", "x", { abort: controller.signal })
    expect(result.status === "error" && result.kind).toBe("interrupted")
    await expect(stat(h.path("aborted.txt"))).rejects.toThrow()
  })

  it("an abort while waiting for permission writes nothing", async () => {
    const controller = new AbortController()
    const permission = new RulePermissions({
      rules: [{ permission: "*", pattern: "*", action: "ask" }],
      decide: (_request, { signal }) =>
        new Promise((_, reject) => signal?.addEventListener("abort", () => reject(signal.reason))),
    })
    setTimeout(() => controller.abort(), 20)
    const result = await write("waiting.txt", "x", { abort: controller.signal, permission })
    expect(result.status === "error" && result.kind).toBe("interrupted")
    await expect(stat(h.path("waiting.txt"))).rejects.toThrow()
  })
})

describe("concurrency", () => {
  it("20 parallel writes of one file all complete, and the file is exactly one of them", async () => {
    const file = h.path("contended.txt")
    const contents = Array.from({ length: 20 }, (_, index) =>
      `${String(index).padStart(2, "0")}\n`.repeat(20_000),
    )
    const results = await Promise.all(contents.map((content) => write(file, content)))
    for (const result of results) completed(result)
    const final = await readFile(file, "utf8")
    expect(contents).toContain(final)
    expect(results.filter((result) => result.metadata.exists === false)).toHaveLength(1)
    expect(await readdir(h.directory)).toEqual(["contended.txt"])
  })

  it("parallel writes from two sessions: the second must read what the first wrote", async () => {
    const file = h.path("shared.txt")
    await writeFile(file, "start\n")
    completed(await read(file, { sessionID: "ses_a" }))
    completed(await read(file, { sessionID: "ses_b" }))
    const [a, b] = await Promise.all([
      write(file, "from a\n", { sessionID: "ses_a" }),
      write(file, "from b\n", { sessionID: "ses_b" }),
    ])
    expect([a!.status, b!.status].sort()).toEqual(["completed", "error"])
    const loser = a!.status === "error" ? a! : b!
    expect(errorOf(loser)).toMatch(/was modified since it was last read/)
    const winner = a!.status === "completed" ? "from a\n" : "from b\n"
    expect(await readFile(file, "utf8")).toBe(winner)
  })
})

describe("a program outside toolbelt changing the file while the write is prepared", () => {
  /** Every `edit` ask is answered "once", after `meanwhile` has run (as an editor saving the file would). */
  const changingDuringAsk = (meanwhile: () => Promise<unknown>) =>
    new RulePermissions({
      rules: [{ permission: "edit", pattern: "*", action: "ask" }],
      decide: async () => {
        await meanwhile()
        return "once"
      },
    })
  const notPrepared = (file: string, what: string, next: string) =>
    `The file ${file} ${what} by another program while this call was preparing the write ` +
    `(after it checked the file, before it replaced it). Nothing was written. ${next}`

  it("a change is not overwritten, and the refusal says what happened", async () => {
    const file = h.path("busy.txt")
    await writeFile(file, "start\n")
    completed(await read(file))
    const permission = changingDuringAsk(() => writeFile(file, "start\n+ saved by an editor\n"))
    const error = errorOf(await write(file, "mine\n", { permission }))
    expect(error).toBe(notPrepared(file, "was changed", "Read it again, then write."))
    expect(await readFile(file, "utf8")).toBe("start\n+ saved by an editor\n")
  })

  it("a same-size rewrite with the old mtime put back is caught too (the ctime moved)", async () => {
    const file = h.path("sneaky.txt")
    await writeFile(file, "aaaa\n")
    completed(await read(file))
    const { mtime } = await stat(file)
    const permission = changingDuringAsk(async () => {
      await writeFile(file, "bbbb\n")
      await utimes(file, mtime, mtime)
    })
    const error = errorOf(await write(file, "mine\n", { permission }))
    expect(error).toBe(notPrepared(file, "was changed", "Read it again, then write."))
    expect(await readFile(file, "utf8")).toBe("bbbb\n")
  })

  it("a file created meanwhile is not overwritten", async () => {
    const file = h.path("fresh.txt")
    const permission = changingDuringAsk(() => writeFile(file, "theirs\n"))
    const error = errorOf(await write(file, "mine\n", { permission }))
    expect(error).toBe(notPrepared(file, "was created", "Read it again, then write."))
    expect(await readFile(file, "utf8")).toBe("theirs\n")
  })

  it("a file deleted meanwhile is not recreated unasked", async () => {
    const file = h.path("gone.txt")
    await writeFile(file, "start\n")
    completed(await read(file))
    const permission = changingDuringAsk(() => rm(file))
    const error = errorOf(await write(file, "mine\n", { permission }))
    expect(error).toBe(notPrepared(file, "was deleted", "Write it again if it should still be created."))
    await expect(stat(file)).rejects.toThrow()
  })
})

describe("events", () => {
  it("publishes file.edited only after a successful write", async () => {
    await writeFile(h.path("unread.txt"), "x")
    errorOf(await write("unread.txt", "y"))
    expect(h.events).toEqual([])
  })
})
