import { mkdir, symlink, writeFile } from "node:fs/promises"
import { dirname, join } from "node:path"
import { describe, expect, it } from "vitest"
import { askOutside, type CallOptions, completed, errorOf, useHarness } from "../kit/fixtures/harness.ts"
import { LIST_LIMIT, ListTool } from "./list.ts"

const h = useHarness({ list: ListTool }, { sessionID: "ses_list" })

const list = (input: Record<string, unknown>, options?: CallOptions) => h.call("list", input, options)

/** Creates files (and their directories); a path ending in `/` is an empty directory. */
async function tree(base: string, paths: string[]): Promise<void> {
  for (const path of paths) {
    if (path.endsWith("/")) await mkdir(join(base, path), { recursive: true })
    else {
      await mkdir(dirname(join(base, path)), { recursive: true })
      await writeFile(join(base, path), "")
    }
  }
}

describe("the tree", () => {
  it("lists the project by default: directories first, sorted, indented by level", async () => {
    await tree(h.directory, [
      "README.md",
      "package.json",
      "src/index.ts",
      "src/util/a.ts",
      "src/util/b.ts",
      "docs/guide.md",
      "empty/",
    ])
    const result = completed(await list({}))
    expect(result.output).toBe(
      [
        `${h.directory}/`,
        "  docs/",
        "    guide.md",
        "  empty/",
        "  src/",
        "    util/",
        "      a.ts",
        "      b.ts",
        "    index.ts",
        "  package.json",
        "  README.md",
      ].join("\n"),
    )
    expect(result.title).toBe(".")
    expect(result.metadata).toMatchObject({ count: 10, truncated: false })
  })

  it("lists a relative or absolute subdirectory", async () => {
    await tree(h.directory, ["src/a.ts", "src/lib/b.ts", "other.ts"])
    const relative = completed(await list({ path: "src" }))
    expect(relative.output).toBe(`${h.path("src")}/\n  lib/\n    b.ts\n  a.ts`)
    expect(relative.title).toBe("src")
    const absolute = completed(await list({ path: h.path("src") }))
    expect(absolute.output).toBe(relative.output)
  })

  it("shows hidden files, but never .git", async () => {
    await tree(h.directory, [".github/workflows/ci.yml", ".env.example", ".git/HEAD", ".git/objects/x"])
    const result = completed(await list({}))
    expect(result.output).toBe(`${h.directory}/\n  .github/\n    workflows/\n      ci.yml\n  .env.example`)
  })

  it("says when a directory has nothing to show", async () => {
    await tree(h.directory, ["node_modules/x/index.js"])
    const result = completed(await list({}))
    expect(result.output).toBe(`${h.directory}/\n(empty directory, or every entry is ignored)`)
    expect(result.metadata).toMatchObject({ count: 0, truncated: false })
  })

  it("lists a symlink to a directory as a directory, without following it", async () => {
    await tree(h.directory, ["real/inside.txt"])
    await symlink(h.path("real"), h.path("alias"))
    await symlink(h.directory, h.path("real", "loop"))
    const result = completed(await list({}))
    expect(result.output).toBe(`${h.directory}/\n  alias/\n  real/\n    loop/\n    inside.txt`)
  })
})

describe("ignores", () => {
  it("leaves out dependency, build, cache and VCS directories", async () => {
    const ignored = [
      "node_modules",
      "__pycache__",
      ".git",
      "dist",
      "build",
      "target",
      "vendor",
      "bin",
      "obj",
      ".idea",
      ".vscode",
      ".zig-cache",
      "zig-out",
      ".coverage",
      "coverage",
      "tmp",
      "temp",
      ".cache",
      "cache",
      "logs",
      ".venv",
      "venv",
      "env",
    ]
    await tree(h.directory, [
      ...ignored.map((name) => `${name}/file.txt`),
      "src/build/out.js",
      "src/keep.ts",
      ".coverage-notes.md",
    ])
    const result = completed(await list({}))
    expect(result.output).toBe(`${h.directory}/\n  src/\n    keep.ts\n  .coverage-notes.md`)
  })

  it("leaves out coverage.py's .coverage data file", async () => {
    await tree(h.directory, [".coverage", "main.py"])
    expect(completed(await list({})).output).toBe(`${h.directory}/\n  main.py`)
  })

  it("respects .gitignore files: the root's, nested ones, and negations", async () => {
    await tree(h.directory, [
      "app.log",
      "keep.log",
      "src/main.ts",
      "src/generated/api.ts",
      "src/nested/secret.key",
      "src/nested/public.txt",
      "out/bundle.js",
    ])
    await writeFile(h.path(".gitignore"), "*.log\n!keep.log\nout/\nsrc/generated\n")
    await writeFile(h.path("src", "nested", ".gitignore"), "*.key\n")
    const result = completed(await list({}))
    expect(result.output).toBe(
      [
        `${h.directory}/`,
        "  src/",
        "    nested/",
        "      .gitignore",
        "      public.txt",
        "    main.ts",
        "  .gitignore",
        "  keep.log",
      ].join("\n"),
    )
  })

  it("applies the worktree's .gitignore files above the listed directory", async () => {
    await tree(h.directory, ["pkg/lib/a.ts", "pkg/lib/a.js", "pkg/lib/snap.snap"])
    await writeFile(h.path(".gitignore"), "*.js\n")
    await writeFile(h.path("pkg", ".gitignore"), "*.snap\n")
    const result = completed(await list({ path: "pkg/lib" }, { extra: { worktree: h.directory } }))
    expect(result.output).toBe(`${h.path("pkg", "lib")}/\n  a.ts`)
  })

  it("applies .git/info/exclude", async () => {
    await tree(h.directory, [".git/info/", "scratch.txt", "main.ts"])
    await writeFile(h.path(".git", "info", "exclude"), "scratch.txt\n")
    expect(completed(await list({})).output).toBe(`${h.directory}/\n  main.ts`)
  })

  it("leaves out the ignore globs: names at any depth, paths, directories only", async () => {
    await tree(h.directory, [
      "a.log",
      "src/b.log",
      "src/gen/x.ts",
      "src/main.ts",
      "fixtures/data.json",
      "test/fixtures/case.json",
      "test/run.ts",
      "notes/fixtures",
    ])
    const result = completed(await list({ ignore: ["*.log", "src/gen/**", "fixtures/"] }))
    expect(result.output).toBe(
      [`${h.directory}/`, "  notes/", "    fixtures", "  src/", "    main.ts", "  test/", "    run.ts"].join(
        "\n",
      ),
    )
  })

  it("a glob on a directory path leaves the directory out", async () => {
    await tree(h.directory, ["src/gen/x.ts", "src/main.ts"])
    const result = completed(await list({ ignore: ["src/gen"] }))
    expect(result.output).toBe(`${h.directory}/\n  src/\n    main.ts`)
  })
})

describe("the cap", () => {
  it(`shows ${LIST_LIMIT} entries, says truncated only when some were left out, and how to narrow`, async () => {
    await tree(
      h.directory,
      Array.from({ length: LIST_LIMIT }, (_, index) => `f${String(index).padStart(3, "0")}.txt`),
    )
    const exact = completed(await list({}))
    expect(exact.metadata).toMatchObject({ count: LIST_LIMIT, truncated: false })
    expect(exact.output).not.toContain("more were left out")

    await writeFile(h.path("one-more.txt"), "")
    const over = completed(await list({}))
    expect(over.metadata).toMatchObject({ count: LIST_LIMIT, truncated: true })
    expect(over.output).toContain(
      `\n\n(Showing the first ${LIST_LIMIT} entries, breadth first; more were left out. List a subdirectory, or pass ignore patterns, to see the rest.)`,
    )
  })

  it("fills the cap breadth first, so the top level is shown whole", async () => {
    await tree(h.directory, [
      ...Array.from({ length: 150 }, (_, index) => `deep/${String(index).padStart(3, "0")}.ts`),
      "top.ts",
      "zzz/",
    ])
    const result = completed(await list({}))
    const lines = result.output.split("\n")
    expect(lines.slice(0, 3)).toEqual([`${h.directory}/`, "  deep/", "    000.ts"])
    expect(lines).toContain("  zzz/")
    expect(lines).toContain("  top.ts")
    expect(result.metadata).toMatchObject({ count: LIST_LIMIT, truncated: true })
  })

  it("ignored entries do not count", async () => {
    await tree(h.directory, [
      ...Array.from({ length: 200 }, (_, index) => `node_modules/p${index}/i.js`),
      "a.ts",
    ])
    expect(completed(await list({})).metadata).toMatchObject({ count: 1, truncated: false })
  })
})

describe("errors", () => {
  it("refuses a file path, pointing at read", async () => {
    await writeFile(h.path("file.ts"), "")
    expect(errorOf(await list({ path: "file.ts" }))).toBe(
      `${h.path("file.ts")} is a file, not a directory. Use the read tool to read a file, or list the directory that holds it.`,
    )
  })

  it("says a missing directory is missing", async () => {
    expect(errorOf(await list({ path: "nope" }))).toBe(`Directory not found: ${h.path("nope")}`)
  })

  it("rejects an ignore that is not a list of strings", async () => {
    const error = errorOf(await list({ ignore: "*.log" }))
    expect(error).toMatch(/^The list tool was called with invalid arguments/)
  })
})

describe("permissions", () => {
  it("asks `list` with the path relative to the worktree and always *", async () => {
    await tree(h.directory, ["src/a.ts"])
    completed(await list({ path: "src" }))
    expect(h.asks).toEqual([
      expect.objectContaining({ permission: "list", patterns: ["src"], always: ["*"] }),
    ])
  })

  it("asks external_directory for the directory itself when it is outside the project", async () => {
    await tree(h.outside, ["x/secret.txt"])
    const error = errorOf(await list({ path: join(h.outside, "x") }, { permission: askOutside() }))
    expect(error).toBe("The user rejected permission to use this specific tool call.")
    expect(h.asks).toEqual([
      expect.objectContaining({
        permission: "external_directory",
        patterns: [join(h.outside, "x", "*")],
        always: [join(h.outside, "x", "*")],
      }),
    ])
  })

  it("lists outside once approved", async () => {
    await tree(h.outside, ["x/secret.txt"])
    const result = completed(
      await list({ path: join(h.outside, "x") }, { permission: askOutside(async () => "once") }),
    )
    expect(result.output).toBe(`${join(h.outside, "x")}/\n  secret.txt`)
    expect(h.asks.map((ask) => ask.permission)).toEqual(["external_directory", "list"])
  })

  it("asks for a symlinked directory in the project that points outside", async () => {
    await tree(h.outside, ["y/z.txt"])
    await symlink(join(h.outside, "y"), h.path("link"))
    errorOf(await list({ path: "link" }, { permission: askOutside() }))
    expect(h.asks[0]).toMatchObject({
      permission: "external_directory",
      patterns: [join(h.outside, "y", "*")],
    })
  })
})

describe("aborts", () => {
  it("an aborted call is interrupted", async () => {
    await tree(h.directory, ["a.ts"])
    const controller = new AbortController()
    controller.abort()
    const result = await list({}, { abort: controller.signal })
    expect(result.status === "error" && result.kind).toBe("interrupted")
  })
})
