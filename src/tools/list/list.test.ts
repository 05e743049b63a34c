import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { DEFAULT_LIMITS } from "../../output/limits.ts"
import { OutputStore } from "../../output/store.ts"
import type { AskRequest, PermissionService } from "../../permission/service.ts"
import { type Decide, RulePermissions } from "../../permission/simple.ts"
import { Registry } from "../../registry/registry.ts"
import { type Settlement, settle } from "../../settle/settle.ts"
import { LIST_LIMIT, ListTool } from "./list.ts"

let root: string
let project: string
let outside: string
let asks: AskRequest[]

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-list-")))
  project = join(root, "project")
  outside = join(root, "outside")
  await mkdir(project)
  await mkdir(outside)
  asks = []
})

afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

function recording(inner: PermissionService): PermissionService {
  return {
    ask: (request, options) => {
      asks.push(request)
      return inner.ask(request, options)
    },
    evaluate: (permission, pattern, agent) => inner.evaluate(permission, pattern, agent),
  }
}

const allowAll = () => new RulePermissions({ rules: [{ permission: "*", pattern: "*", action: "allow" }] })

const askOutside = (decide?: Decide) =>
  new RulePermissions({
    rules: [
      { permission: "*", pattern: "*", action: "allow" },
      { permission: "external_directory", pattern: "*", action: "ask" },
    ],
    ...(decide ? { decide } : {}),
  })

let callCount = 0

async function list(
  input: Record<string, unknown>,
  options: { permission?: PermissionService; worktree?: string; abort?: AbortSignal } = {},
): Promise<Settlement> {
  const registry = new Registry()
  registry.register({ list: ListTool })
  return settle(
    {
      tool: "list",
      input,
      sessionID: "ses_list",
      messageID: "msg_1",
      agent: "build",
      callID: `call_${++callCount}`,
      ...(options.abort ? { abort: options.abort } : {}),
      extra: { directory: project, ...(options.worktree ? { worktree: options.worktree } : {}) },
    },
    {
      registry,
      permission: recording(options.permission ?? allowAll()),
      store: new OutputStore({ dir: join(root, "tool-output") }),
      limits: DEFAULT_LIMITS,
    },
  )
}

function completed(result: Settlement) {
  if (result.status !== "completed") throw new Error(`expected completed, got: ${result.error}`)
  return result
}

function failed(result: Settlement): string {
  if (result.status !== "error") throw new Error(`expected an error, got: ${result.output}`)
  return result.error
}

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
    await tree(project, [
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
        `${project}/`,
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
    await tree(project, ["src/a.ts", "src/lib/b.ts", "other.ts"])
    const relative = completed(await list({ path: "src" }))
    expect(relative.output).toBe(`${join(project, "src")}/\n  lib/\n    b.ts\n  a.ts`)
    expect(relative.title).toBe("src")
    const absolute = completed(await list({ path: join(project, "src") }))
    expect(absolute.output).toBe(relative.output)
  })

  it("shows hidden files, but never .git", async () => {
    await tree(project, [".github/workflows/ci.yml", ".env.example", ".git/HEAD", ".git/objects/x"])
    const result = completed(await list({}))
    expect(result.output).toBe(`${project}/\n  .github/\n    workflows/\n      ci.yml\n  .env.example`)
  })

  it("says when a directory has nothing to show", async () => {
    await tree(project, ["node_modules/x/index.js"])
    const result = completed(await list({}))
    expect(result.output).toBe(`${project}/\n(empty directory, or every entry is ignored)`)
    expect(result.metadata).toMatchObject({ count: 0, truncated: false })
  })

  it("lists a symlink to a directory as a directory, without following it", async () => {
    await tree(project, ["real/inside.txt"])
    await symlink(join(project, "real"), join(project, "alias"))
    await symlink(project, join(project, "real", "loop"))
    const result = completed(await list({}))
    expect(result.output).toBe(`${project}/\n  alias/\n  real/\n    loop/\n    inside.txt`)
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
    await tree(project, [
      ...ignored.map((name) => `${name}/file.txt`),
      "src/build/out.js",
      "src/keep.ts",
      ".coverage-notes.md",
    ])
    const result = completed(await list({}))
    expect(result.output).toBe(`${project}/\n  src/\n    keep.ts\n  .coverage-notes.md`)
  })

  it("leaves out coverage.py's .coverage data file", async () => {
    await tree(project, [".coverage", "main.py"])
    expect(completed(await list({})).output).toBe(`${project}/\n  main.py`)
  })

  it("respects .gitignore files: the root's, nested ones, and negations", async () => {
    await tree(project, [
      "app.log",
      "keep.log",
      "src/main.ts",
      "src/generated/api.ts",
      "src/nested/secret.key",
      "src/nested/public.txt",
      "out/bundle.js",
    ])
    await writeFile(join(project, ".gitignore"), "*.log\n!keep.log\nout/\nsrc/generated\n")
    await writeFile(join(project, "src", "nested", ".gitignore"), "*.key\n")
    const result = completed(await list({}))
    expect(result.output).toBe(
      [
        `${project}/`,
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
    await tree(project, ["pkg/lib/a.ts", "pkg/lib/a.js", "pkg/lib/snap.snap"])
    await writeFile(join(project, ".gitignore"), "*.js\n")
    await writeFile(join(project, "pkg", ".gitignore"), "*.snap\n")
    const result = completed(await list({ path: "pkg/lib" }, { worktree: project }))
    expect(result.output).toBe(`${join(project, "pkg", "lib")}/\n  a.ts`)
  })

  it("applies .git/info/exclude", async () => {
    await tree(project, [".git/info/", "scratch.txt", "main.ts"])
    await writeFile(join(project, ".git", "info", "exclude"), "scratch.txt\n")
    expect(completed(await list({})).output).toBe(`${project}/\n  main.ts`)
  })

  it("leaves out the ignore globs: names at any depth, paths, directories only", async () => {
    await tree(project, [
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
      [`${project}/`, "  notes/", "    fixtures", "  src/", "    main.ts", "  test/", "    run.ts"].join(
        "\n",
      ),
    )
  })

  it("a glob on a directory path leaves the directory out", async () => {
    await tree(project, ["src/gen/x.ts", "src/main.ts"])
    const result = completed(await list({ ignore: ["src/gen"] }))
    expect(result.output).toBe(`${project}/\n  src/\n    main.ts`)
  })
})

describe("the cap", () => {
  it(`shows ${LIST_LIMIT} entries, says truncated only when some were left out, and how to narrow`, async () => {
    await tree(
      project,
      Array.from({ length: LIST_LIMIT }, (_, index) => `f${String(index).padStart(3, "0")}.txt`),
    )
    const exact = completed(await list({}))
    expect(exact.metadata).toMatchObject({ count: LIST_LIMIT, truncated: false })
    expect(exact.output).not.toContain("more were left out")

    await writeFile(join(project, "one-more.txt"), "")
    const over = completed(await list({}))
    expect(over.metadata).toMatchObject({ count: LIST_LIMIT, truncated: true })
    expect(over.output).toContain(
      `\n\n(Showing the first ${LIST_LIMIT} entries, breadth first; more were left out. List a subdirectory, or pass ignore patterns, to see the rest.)`,
    )
  })

  it("fills the cap breadth first, so the top level is shown whole", async () => {
    await tree(project, [
      ...Array.from({ length: 150 }, (_, index) => `deep/${String(index).padStart(3, "0")}.ts`),
      "top.ts",
      "zzz/",
    ])
    const result = completed(await list({}))
    const lines = result.output.split("\n")
    expect(lines.slice(0, 3)).toEqual([`${project}/`, "  deep/", "    000.ts"])
    expect(lines).toContain("  zzz/")
    expect(lines).toContain("  top.ts")
    expect(result.metadata).toMatchObject({ count: LIST_LIMIT, truncated: true })
  })

  it("ignored entries do not count", async () => {
    await tree(project, [...Array.from({ length: 200 }, (_, index) => `node_modules/p${index}/i.js`), "a.ts"])
    expect(completed(await list({})).metadata).toMatchObject({ count: 1, truncated: false })
  })
})

describe("errors", () => {
  it("refuses a file path, pointing at read", async () => {
    await writeFile(join(project, "file.ts"), "")
    expect(failed(await list({ path: "file.ts" }))).toBe(
      `${join(project, "file.ts")} is a file, not a directory. Use the read tool to read a file, or list the directory that holds it.`,
    )
  })

  it("says a missing directory is missing", async () => {
    expect(failed(await list({ path: "nope" }))).toBe(`Directory not found: ${join(project, "nope")}`)
  })

  it("rejects an ignore that is not a list of strings", async () => {
    const error = failed(await list({ ignore: "*.log" }))
    expect(error).toMatch(/^The list tool was called with invalid arguments/)
  })
})

describe("permissions", () => {
  it("asks `list` with the path relative to the worktree and always *", async () => {
    await tree(project, ["src/a.ts"])
    completed(await list({ path: "src" }))
    expect(asks).toEqual([expect.objectContaining({ permission: "list", patterns: ["src"], always: ["*"] })])
  })

  it("asks external_directory for the directory itself when it is outside the project", async () => {
    await tree(outside, ["x/secret.txt"])
    const error = failed(await list({ path: join(outside, "x") }, { permission: askOutside() }))
    expect(error).toBe("The user rejected permission to use this specific tool call.")
    expect(asks).toEqual([
      expect.objectContaining({
        permission: "external_directory",
        patterns: [join(outside, "x", "*")],
        always: [join(outside, "x", "*")],
      }),
    ])
  })

  it("lists outside once approved", async () => {
    await tree(outside, ["x/secret.txt"])
    const result = completed(
      await list({ path: join(outside, "x") }, { permission: askOutside(async () => "once") }),
    )
    expect(result.output).toBe(`${join(outside, "x")}/\n  secret.txt`)
    expect(asks.map((ask) => ask.permission)).toEqual(["external_directory", "list"])
  })

  it("asks for a symlinked directory in the project that points outside", async () => {
    await tree(outside, ["y/z.txt"])
    await symlink(join(outside, "y"), join(project, "link"))
    failed(await list({ path: "link" }, { permission: askOutside() }))
    expect(asks[0]).toMatchObject({ permission: "external_directory", patterns: [join(outside, "y", "*")] })
  })
})

describe("aborts", () => {
  it("an aborted call is interrupted", async () => {
    await tree(project, ["a.ts"])
    const controller = new AbortController()
    controller.abort()
    const result = await list({}, { abort: controller.signal })
    expect(result.status === "error" && result.kind).toBe("interrupted")
  })
})
