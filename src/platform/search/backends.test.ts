import { spawnSync } from "node:child_process"
// Both backends on the same fixture trees: the same results, and the results ripgrep's rules give.
import { mkdirSync, readdirSync, readlinkSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { FilesOptions, GrepOptions, SearchBackend } from "./backend.ts"
import { SearchPatternError } from "./backend.ts"
import { FallbackBackend } from "./fallback.ts"
import { makeTree, writeTree } from "./fixtures/tree.ts"
import { RipgrepBackend } from "./ripgrep.ts"
import { which } from "./select.ts"

const rg = which("rg")
if (!rg && process.env.CI) throw new Error("ripgrep (rg) must be installed in CI: both backends are tested")
if (!rg) console.warn("rg not found on PATH: the ripgrep backend tests are skipped")

const backends: SearchBackend[] = [
  new FallbackBackend(),
  new FallbackBackend({ threads: 0 }),
  // No head start beyond the root directory: the workers walk the rest of every tree, however small.
  new FallbackBackend({ headStartMs: 0 }),
  ...(rg ? [new RipgrepBackend(rg)] : []),
]
const label = (backend: SearchBackend) =>
  backend === backends[1]
    ? "fallback (no workers)"
    : backend === backends[2]
      ? "fallback (workers only)"
      : backend.name

const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("needle utf16\nplain\n", "utf16le")])
const late = Buffer.concat([Buffer.from("needle early\n"), Buffer.alloc(100_000, "x"), Buffer.from("\n\0\n")])

let parent: string
let root: string
let plain: string

beforeAll(() => {
  parent = makeTree({ ".ignore": "parent-ignored.txt\n" })
  root = join(parent, "project")
  writeTree(root, {
    ".git/HEAD": "ref: refs/heads/main\n",
    ".git/info/exclude": "excluded.txt\n",
    ".gitignore": "*.log\n!keep.log\nbuild/\n/root-only.txt\nsub/anchored.txt\ndocs/**/*.tmp\n",
    ".ignore": "dot-ignored.txt\n!whitelisted.log\n",
    ".rgignore": "rg-ignored.txt\n",
    ".hidden": "needle hidden\n",
    ".config/settings.txt": "needle in a hidden directory\n",
    "a.txt": "needle a\nPM_RESUME here\nfoo.bar(\nCOUNT_RESUME\n",
    "b.md": "nothing to see\n",
    "debug.log": "needle debug\n",
    "keep.log": "needle keep\n",
    "whitelisted.log": "needle whitelisted\n",
    "build/out.txt": "needle build\n",
    "root-only.txt": "needle root\n",
    "sub/root-only.txt": "needle sub root\n",
    "sub/anchored.txt": "needle anchored\n",
    "sub/.gitignore": "!debug2.log\nlocal.txt\n",
    "sub/debug2.log": "needle debug2\n",
    "sub/local.txt": "needle local\n",
    "local.txt": "needle top local\n",
    "sub/deeper/x.txt": "needle x\nNEEDLE upper\nneedlework\n",
    "docs/a/b/c.tmp": "needle tmp\n",
    "docs/c.tmp": "needle tmp\n",
    "docs/readme.txt": "read me\n",
    "excluded.txt": "needle excluded\n",
    "rg-ignored.txt": "needle rg\n",
    "dot-ignored.txt": "needle dot\n",
    "parent-ignored.txt": "needle parent\n",
    "naïve/日本語.txt": "needle 日本語 café\nÉTÉ\nnaïve\n",
    "binary.bin": Buffer.from("needle\0binary\n"),
    "late.bin": late,
    "utf16.txt": utf16,
    "bom.txt": Buffer.from("\uFEFFneedle bom\n"),
    "crlf.txt": "needle crlf\r\nsecond\r\n",
    "context.txt": Array.from({ length: 12 }, (_, k) =>
      [3, 4, 9].includes(k + 1) ? `needle ${k + 1}` : `line ${k + 1}`,
    ).join("\n"),
    "link-a.txt": { link: "a.txt" },
    linkdir: { link: "sub" },
    "nested/.git/HEAD": "ref\n",
    "nested/.gitignore": "*.txt\n",
    "nested/x.txt": "needle nested x\n",
    "nested/y.md": "needle nested y\n",
    "nested/z.log": "needle nested z\n",
    "tie/b.txt": { content: "needle tie\n", mtime: 1_600_000_000 },
    "tie/a.txt": { content: "needle tie\n", mtime: 1_600_000_000 },
  })
  // A directory that is not a git repository: its .gitignore does not count (as in ripgrep).
  plain = makeTree({
    ".gitignore": "*.txt\n",
    "x.txt": "needle\n",
    ".ignore": "y.txt\n",
    "y.txt": "needle\n",
  })
})

afterAll(() => {
  rmSync(parent, { recursive: true, force: true })
  rmSync(plain, { recursive: true, force: true })
})

const LISTED = [
  ".config/settings.txt",
  ".gitignore",
  ".hidden",
  ".ignore",
  ".rgignore",
  "a.txt",
  "b.md",
  "binary.bin",
  "bom.txt",
  "context.txt",
  "crlf.txt",
  "docs/readme.txt",
  "keep.log",
  "late.bin",
  "local.txt",
  "naïve/日本語.txt",
  "nested/.gitignore",
  "nested/y.md",
  "nested/z.log",
  "sub/.gitignore",
  "sub/debug2.log",
  "sub/deeper/x.txt",
  "sub/root-only.txt",
  "tie/a.txt",
  "tie/b.txt",
  "utf16.txt",
  "whitelisted.log",
]

async function listed(backend: SearchBackend, options: FilesOptions = {}, at = root): Promise<string[]> {
  const result = await backend.files(at, options)
  return result.files.map((file) => file.path.slice(at.length + 1))
}

async function grepped(backend: SearchBackend, options: GrepOptions, at = root) {
  const result = await backend.grep(at, options)
  return {
    ...result,
    files: result.files.map((file) => ({ ...file, path: file.path.slice(at.length + 1) })),
  }
}

describe.each(backends.map((backend) => [label(backend), backend] as const))("%s", (_name, backend) => {
  describe("files", () => {
    it("lists what ripgrep lists: ignore files, nested rules, negations, hidden files, never .git", async () => {
      expect((await listed(backend)).sort()).toEqual(LISTED)
    })

    it("orders newest first, equal times by path, and keeps the newest `limit` with an honest total", async () => {
      const all = await backend.files(root)
      const times = all.files.map((file) => file.mtimeMs)
      expect(times).toEqual([...times].sort((a, b) => b - a))
      const files = all.files.map((file) => file.path.slice(root.length + 1))
      expect(files.indexOf("tie/a.txt")).toBe(files.indexOf("tie/b.txt") - 1)
      const top = await backend.files(root, { limit: 3 })
      expect(top.total).toBe(LISTED.length)
      expect(top.files).toEqual(all.files.slice(0, 3))
    })

    it.each([
      [
        "*.txt",
        [
          "a.txt",
          "context.txt",
          "crlf.txt",
          "docs/readme.txt",
          "local.txt",
          "naïve/日本語.txt",
          "sub/deeper/x.txt",
          "sub/root-only.txt",
          "tie/a.txt",
          "tie/b.txt",
          "utf16.txt",
          "bom.txt",
          ".config/settings.txt",
        ],
      ],
      ["**/*.log", ["keep.log", "nested/z.log", "sub/debug2.log", "whitelisted.log"]],
      ["sub/**", ["sub/.gitignore", "sub/debug2.log", "sub/deeper/x.txt", "sub/root-only.txt"]],
      ["sub/*.txt", ["sub/root-only.txt"]],
      ["./sub/*.txt", ["sub/root-only.txt"]],
      [
        "*.{md,log}",
        ["b.md", "keep.log", "nested/y.md", "nested/z.log", "sub/debug2.log", "whitelisted.log"],
      ],
      [
        "[!abc]*.txt",
        [
          "docs/readme.txt",
          "local.txt",
          "naïve/日本語.txt",
          "sub/deeper/x.txt",
          "sub/root-only.txt",
          "utf16.txt",
          ".config/settings.txt",
        ],
      ],
      ["**/日本語.txt", ["naïve/日本語.txt"]],
      [".*", [".gitignore", ".hidden", ".ignore", ".rgignore", "nested/.gitignore", "sub/.gitignore"]],
      ["**/.config/**", [".config/settings.txt"]],
      ["nothing-matches-*", []],
    ])("filters with %s (ignored files never leak in)", async (pattern, expected) => {
      expect((await listed(backend, { pattern: [pattern] })).sort()).toEqual([...expected].sort())
    })

    it("takes several globs", async () => {
      expect((await listed(backend, { pattern: ["*.md", "keep.*"] })).sort()).toEqual([
        "b.md",
        "keep.log",
        "nested/y.md",
      ])
    })

    it("leaves hidden files out when asked", async () => {
      const files = await listed(backend, { hidden: false })
      expect(files.sort()).toEqual(
        LISTED.filter((path) => !path.split("/").some((part) => part.startsWith("."))),
      )
    })

    it("follows symbolic links when asked", async () => {
      const files = await listed(backend, { follow: true })
      expect(files).toContain("link-a.txt")
      expect(files).toContain("linkdir/deeper/x.txt")
      expect(files).toContain("linkdir/debug2.log")
      expect(files).not.toContain("linkdir/local.txt")
    })

    it("applies the ignore files above the root, and the repository's rules in a subdirectory", async () => {
      expect((await listed(backend, {}, join(root, "sub"))).sort()).toEqual([
        ".gitignore",
        "debug2.log",
        "deeper/x.txt",
        "root-only.txt",
      ])
      expect(await listed(backend, { pattern: ["*.log"] }, join(root, "nested"))).toEqual(["z.log"])
    })

    it("ignores .gitignore outside a git repository, but not .ignore", async () => {
      expect((await listed(backend, {}, plain)).sort()).toEqual([".gitignore", ".ignore", "x.txt"])
    })
  })

  describe("grep", () => {
    it("finds matching lines, newest files first; binary files skipped; BOM, UTF-16 and CRLF handled", async () => {
      const result = await grepped(backend, { pattern: "needle" })
      const paths = result.files.map((file) => file.path)
      expect([...paths].sort()).toEqual(
        [
          ".config/settings.txt",
          ".hidden",
          "a.txt",
          "bom.txt",
          "context.txt",
          "crlf.txt",
          "keep.log",
          "local.txt",
          "naïve/日本語.txt",
          "nested/y.md",
          "nested/z.log",
          "sub/debug2.log",
          "sub/deeper/x.txt",
          "sub/root-only.txt",
          "tie/a.txt",
          "tie/b.txt",
          "utf16.txt",
          "whitelisted.log",
        ].sort(),
      )
      const times = result.files.map((file) => file.mtimeMs)
      expect(times).toEqual([...times].sort((a, b) => b - a))
      expect(result.totalFiles).toBe(18)
      expect(result.totalMatches).toBe(21)
      const line = (path: string) => result.files.find((file) => file.path === path)?.lines
      expect(line("bom.txt")).toEqual([{ line: 1, text: "needle bom", match: true }])
      expect(line("utf16.txt")).toEqual([{ line: 1, text: "needle utf16", match: true }])
      expect(line("crlf.txt")).toEqual([{ line: 1, text: "needle crlf", match: true }])
      expect(line("naïve/日本語.txt")).toEqual([{ line: 1, text: "needle 日本語 café", match: true }])
      expect(line("sub/deeper/x.txt")).toEqual([
        { line: 1, text: "needle x", match: true },
        { line: 3, text: "needlework", match: true },
      ])
    })

    it("keeps the first `limit` matching lines (newest files first) with honest totals", async () => {
      const all = await grepped(backend, { pattern: "needle" })
      const limited = await grepped(backend, { pattern: "needle", limit: 5 })
      expect(limited.totalMatches).toBe(all.totalMatches)
      expect(limited.totalFiles).toBe(all.totalFiles)
      const flat = (files: typeof all.files) =>
        files.flatMap((file) => file.lines!.map((line) => `${file.path}:${line.line}`))
      expect(flat(limited.files)).toEqual(flat(all.files).slice(0, 5))
    })

    it("matches case-insensitively, fixed strings, regexes, Unicode", async () => {
      const paths = async (options: GrepOptions) =>
        (await grepped(backend, options)).files.map((file) => file.path).sort()
      expect(await paths({ pattern: "NEEDLE" })).toEqual(["sub/deeper/x.txt"])
      expect((await grepped(backend, { pattern: "NEEDLE", ignoreCase: true })).totalMatches).toBe(22)
      expect(await paths({ pattern: "foo.bar(", fixedStrings: true })).toEqual(["a.txt"])
      expect(await paths({ pattern: "\\w+_RESUME" })).toEqual(["a.txt"])
      expect((await grepped(backend, { pattern: "\\w+_RESUME" })).totalMatches).toBe(2)
      expect(await paths({ pattern: "日本語" })).toEqual(["naïve/日本語.txt"])
      expect(await paths({ pattern: "^été$", ignoreCase: true })).toEqual(["naïve/日本語.txt"])
      expect(await paths({ pattern: "^\\w+$" })).toContain("naïve/日本語.txt")
      expect(await paths({ pattern: "(?i)needle \\d+$" })).toEqual(["context.txt"])
    })

    it("shows context lines, merged", async () => {
      const result = await grepped(backend, {
        pattern: "needle",
        include: ["context.txt"],
        before: 1,
        after: 2,
      })
      expect(result.files[0]!.lines!.map((line) => `${line.line}${line.match ? ":" : "-"}`)).toEqual([
        "2-",
        "3:",
        "4:",
        "5-",
        "6-",
        "8-",
        "9:",
        "10-",
        "11-",
      ])
    })

    it("lists files and counts lines in the other modes", async () => {
      const files = await grepped(backend, { pattern: "needle", mode: "files", limit: 3 })
      expect(files.files).toHaveLength(3)
      expect(files.totalFiles).toBe(18)
      expect(files.files.every((file) => file.lines === undefined)).toBe(true)
      const counts = await grepped(backend, { pattern: "needle", mode: "count" })
      expect(counts.files.find((file) => file.path === "context.txt")?.count).toBe(3)
      expect(counts.files.find((file) => file.path === "sub/deeper/x.txt")?.count).toBe(2)
    })

    it("stops counting at maxCount per file", async () => {
      const result = await grepped(backend, { pattern: "needle", include: ["context.txt"], maxCount: 2 })
      expect(result.totalMatches).toBe(2)
      expect(result.files[0]!.lines!.filter((line) => line.match)).toHaveLength(2)
    })

    it("filters with include globs, never leaking ignored files", async () => {
      const paths = async (include: string[]) =>
        (await grepped(backend, { pattern: "needle", include, mode: "files" })).files
          .map((file) => file.path)
          .sort()
      expect(await paths(["*.log"])).toEqual([
        "keep.log",
        "nested/z.log",
        "sub/debug2.log",
        "whitelisted.log",
      ])
      expect(await paths(["sub/**/*.txt"])).toEqual(["sub/deeper/x.txt", "sub/root-only.txt"])
      expect(await paths(["*.{md,bin}"])).toEqual(["nested/y.md"])
    })

    it("reads brackets and numeric ranges in include globs as the glob tool does, not as rg's type syntax", async () => {
      const tree = makeTree({
        "app/[id].tsx": "needle route\n",
        "app/i.tsx": "needle i\n",
        "app/x.tsx": "needle x\n",
        "page2.md": "needle two\n",
        "page7.md": "needle seven\n",
      })
      try {
        const paths = async (include: string[]) =>
          (await backend.grep(tree, { pattern: "needle", include, mode: "files" })).files
            .map((file) => file.path.slice(tree.length + 1))
            .sort()
        expect(await paths(["[id].tsx"])).toEqual(["app/[id].tsx", "app/i.tsx"])
        expect(await paths(["page{1..3}.md"])).toEqual(["page2.md"])
      } finally {
        rmSync(tree, { recursive: true, force: true })
      }
    })

    it("searches only the file when the root is a file, even an ignored one; binary is still skipped", async () => {
      const one = await backend.grep(join(root, "debug.log"), { pattern: "needle" })
      expect(one.files.map((file) => file.path)).toEqual([join(root, "debug.log")])
      expect(one.files[0]!.lines).toEqual([{ line: 1, text: "needle debug", match: true }])
      expect((await backend.grep(join(root, "binary.bin"), { pattern: "needle" })).files).toEqual([])
      expect((await backend.grep(join(root, "late.bin"), { pattern: "needle" })).files).toEqual([])
    })

    it("rejects an invalid regex naming the problem", async () => {
      for (const [pattern, problem] of [
        ["foo(", "unclosed group"],
        ["[abc", "unclosed character class"],
        ["(?<=a)b", "look-around, including look-ahead and look-behind, is not supported"],
        ["a\\nb", 'the literal "\\n" is not allowed: grep matches one line at a time'],
      ]) {
        const error = await backend.grep(root, { pattern: pattern! }).catch((caught: unknown) => caught)
        expect(error, pattern).toBeInstanceOf(SearchPatternError)
        expect((error as SearchPatternError).problem, pattern).toBe(problem)
      }
    })
  })
})

describe.skipIf(!rg)("the two backends agree", () => {
  const [fallback, , ripgrep] = backends as [SearchBackend, SearchBackend, SearchBackend]

  it.each<FilesOptions>([
    {},
    { hidden: false },
    { follow: true },
    { pattern: ["**/*.txt"] },
    { pattern: ["*"], limit: 7 },
    { pattern: ["*.txt", "*.log"], follow: true },
    { pattern: ["*.txt"], hidden: false },
    { pattern: ["**/*.log", ".gitignore"], limit: 3 },
  ])("files %j", async (options) => {
    expect(await fallback.files(root, options)).toEqual(await ripgrep.files(root, options))
  })

  it.each<GrepOptions>([
    { pattern: "needle" },
    { pattern: "needle", before: 2, after: 1 },
    { pattern: "needle", limit: 4, after: 3 },
    { pattern: "NEEDLE", ignoreCase: true, mode: "count" },
    { pattern: "e", mode: "files" },
    { pattern: "^$|^\\s", mode: "count" },
    { pattern: "foo.bar(", fixedStrings: true },
    { pattern: "[[:upper:]]{2,}" },
    { pattern: "caf\\x{e9}|\\p{Han}+" },
    { pattern: "needle", include: ["*.txt", "*.log"], follow: true },
  ])("grep %j", async (options) => {
    expect(await fallback.grep(root, options)).toEqual(await ripgrep.grep(root, options))
  })
})

// Ignored files a name glob matches, in trees where only the ignore rules keep them out: rg must never be
// told to list them (a `--glob` override would), and the rules must come from every ignore file, even one
// rg does not list (a symbolic link) or one of a nested repository below a root that is no repository.
describe("name globs and the ignore rules", () => {
  let repo: string
  let linked: string
  let loose: string
  let outer: string

  beforeAll(() => {
    repo = makeTree({
      ".git/HEAD": "ref\n",
      ".gitignore": "gen.c\nout.c/\n*.tmp.c\n",
      "main.c": "int main;\n",
      "gen.c": "generated\n",
      "x.tmp.c": "temporary\n",
      "out.c/inner.c": "in an ignored directory whose name matches\n",
      ".hidden.c": "hidden\n",
      ".cache.c/deep.c": "in a hidden directory whose name matches\n",
      "lib/util.c": "util\n",
      "lib/.ignore": "local.c\n!gen.c\n",
      "lib/local.c": "ignored by .ignore\n",
      "lib/gen.c": "re-included by .ignore\n",
      "vendor/.git/HEAD": "ref\n",
      "vendor/.git/info/exclude": "secret.c\n",
      "vendor/secret.c": "excluded by the nested repository\n",
      "vendor/open.c": "listed\n",
      "vendor/x.tmp.c": "the outer .gitignore stops at the nested repository\n",
      Kconfig: "config\n",
      "sub/Kconfig": "config\n",
      "sub/.gitignore": "Kconfig\n",
    })
    // The ignore files are links to one shared file (rg --files lists no links, but reads them as rules).
    linked = makeTree({
      "repo/.git/HEAD": "ref\n",
      "repo/rules": "*.c\n",
      "repo/main.c": "not ignored: the rules are linked into sub only\n",
      "repo/sub/.gitignore": { link: "../rules" },
      "repo/sub/a.c": "ignored by the linked .gitignore\n",
      "repo/sub/b.txt": "listed\n",
      "loose/rules": "*.c\n",
      "loose/main.c": "not ignored\n",
      "loose/sub/.ignore": { link: "../rules" },
      "loose/sub/a.c": "ignored by the linked .ignore, which counts outside a repository too\n",
    })
    loose = makeTree({ ".gitignore": "*.c\n", "a.c": "not a repository: .gitignore does not count\n" })
    outer = makeTree({
      ".gitignore": "*.c\n",
      "top.c": "listed: no repository here\n",
      "deep/a/b/.git": "gitdir: ../../../elsewhere\n",
      "deep/a/b/.gitignore": "gen.c\n",
      "deep/a/b/c/x.c": "in a worktree\n",
      "deep/a/b/c/gen.c": "ignored by the worktree's .gitignore\n",
      "vendor/.git/HEAD": "ref\n",
      "vendor/.git/info/exclude": "secret.c\n",
      "vendor/.gitignore": "generated.c\n",
      "vendor/secret.c": "excluded by the nested repository\n",
      "vendor/generated.c": "ignored by the nested repository\n",
      "vendor/lib/open.c": "listed\n",
    })
  })

  afterAll(() => {
    for (const dir of [repo, linked, loose, outer]) rmSync(dir, { recursive: true, force: true })
  })

  describe.each(backends.map((backend) => [label(backend), backend] as const))("%s", (_name, backend) => {
    const names = async (at: string, pattern: string[], options: FilesOptions = {}) =>
      (await listed(backend, { pattern, ...options }, at)).sort()

    it("leaves out ignored files and directories that a name glob matches", async () => {
      expect(await names(repo, ["*.c"])).toEqual([
        ".cache.c/deep.c",
        ".hidden.c",
        "lib/gen.c",
        "lib/util.c",
        "main.c",
        "vendor/open.c",
        "vendor/x.tmp.c",
      ])
      expect(await names(repo, ["Kconfig"])).toEqual(["Kconfig"])
      expect(await names(repo, ["*.c"], { hidden: false })).toEqual([
        "lib/gen.c",
        "lib/util.c",
        "main.c",
        "vendor/open.c",
        "vendor/x.tmp.c",
      ])
      const top = await backend.files(repo, { pattern: ["*.c"], limit: 2 })
      expect(top.total).toBe(7)
      expect(top.files).toEqual((await backend.files(repo, { pattern: ["*.c"] })).files.slice(0, 2))
    })

    it("applies a symbolically linked .gitignore in a repository, and a linked .ignore anywhere", async () => {
      for (const follow of [false, true]) {
        expect(await names(join(linked, "repo"), ["**/*.c"], { follow })).toEqual(["main.c"])
        expect(await names(join(linked, "loose"), ["**/*.c"], { follow })).toEqual(["main.c"])
        expect(await names(linked, ["*.c", "*.txt"], { follow })).toEqual([
          "loose/main.c",
          "repo/main.c",
          "repo/sub/b.txt",
        ])
      }
    })

    it("greps only the files a name glob lists, hidden files left out when asked", async () => {
      for (const hidden of [true, false]) {
        const result = await backend.grep(repo, { pattern: ".", include: ["*.c"], hidden, mode: "files" })
        const paths = result.files.map((file) => file.path.slice(repo.length + 1)).sort()
        expect(paths).toEqual(await names(repo, ["*.c"], { hidden }))
      }
    })

    it("applies no .gitignore outside a repository, but a nested repository's rules below it", async () => {
      expect(await names(loose, ["*.c"])).toEqual(["a.c"])
      expect(await names(outer, ["*.c"])).toEqual(["deep/a/b/c/x.c", "top.c", "vendor/lib/open.c"])
      expect(await names(join(outer, "vendor"), ["**/*.c"])).toEqual(["lib/open.c"])
    })
  })

  it.skipIf(!rg).each<[string, FilesOptions]>([
    ["linked", { pattern: ["**/*.c"] }],
    ["linked", { pattern: ["**/*.c"], follow: true }],
    ["linked", { pattern: ["*.c", "*.txt"], limit: 2 }],
    ["repo", { pattern: ["*.c"], hidden: false }],
    ["outer", { pattern: ["*.c"] }],
  ])("the backends agree in %s on %j", async (tree, options) => {
    const at = { linked, repo, outer }[tree]!
    const [fallback, , ripgrep] = backends as [SearchBackend, SearchBackend, SearchBackend]
    expect(await ripgrep.files(at, options)).toEqual(await fallback.files(at, options))
  })
})

describe.each(backends.map((backend) => [label(backend), backend] as const))(
  "%s: time limits",
  (_name, backend) => {
    let big: string

    beforeAll(() => {
      big = makeTree({})
      const content = `${"some text without the word\n".repeat(2000)}needle\n`
      for (let d = 0; d < 30; d++) {
        mkdirSync(join(big, `d${d}`))
        for (let f = 0; f < 100; f++) writeFileSync(join(big, `d${d}`, `f${f}.txt`), content)
      }
    })
    afterAll(() => rmSync(big, { recursive: true, force: true }))

    it("keeps the same newest files with a limit as without, when many threads share the walk", async () => {
      const all = await backend.files(big)
      const top = await backend.files(big, { limit: 25 })
      expect(top.total).toBe(3000)
      expect(top.files).toEqual(all.files.slice(0, 25))
      const counted = await backend.grep(big, { pattern: "needle", mode: "count", limit: 25 })
      expect(counted).toMatchObject({ totalFiles: 3000, totalMatches: 3000 })
      expect(counted.files.map((file) => file.path)).toEqual(all.files.slice(0, 25).map((file) => file.path))
    })

    it("takes a time limit of 0 as already up: nothing is searched, and the result says so", async () => {
      const result = await backend.grep(big, { pattern: "needle", timeoutMs: 0 })
      expect(result).toEqual({ files: [], totalMatches: 0, totalFiles: 0, timedOut: true })
      const files = await backend.files(big, { timeoutMs: 0 })
      expect(files).toEqual({ files: [], total: 0, timedOut: true })
      const full = await backend.grep(big, { pattern: "needle", mode: "count" })
      expect(full).toMatchObject({ timedOut: false, totalFiles: 3000, totalMatches: 3000 })
    })

    it("stops at once on abort, leaving no process behind", async () => {
      const controller = new AbortController()
      const search = backend.grep(big, { pattern: "\\w+ne{2}dle", signal: controller.signal })
      setTimeout(() => controller.abort(), 5)
      // An abort that was not honoured would let the search finish and resolve: rejecting is the proof.
      await expect(search).rejects.toMatchObject({ name: "AbortError" })
      expect(processesIn(big)).toEqual([])
    })
  },
)

/** Processes whose working directory is `dir` (Linux; elsewhere nothing is checked). */
function processesIn(dir: string): string[] {
  if (process.platform !== "linux") return []
  const out: string[] = []
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue
    try {
      if (readlinkSync(`/proc/${pid}/cwd`) === dir) out.push(pid)
    } catch {
      // Gone, or not ours to look at.
    }
  }
  return out
}

describe("a regular expression that backtracks without end", () => {
  /** A regression would hold the thread for ever: the search runs in a child, killed after this. */
  const HANG_GUARD_MS = 60_000
  const fallback = new URL("./fallback.ts", import.meta.url).pathname
  it.each([
    ["fallback", "{}"],
    ["fallback (workers only)", "{ headStartMs: 0 }"],
  ])("%s: never runs it in the calling thread; the search ends by its time limit", (_name, options) => {
    const tree = makeTree({ "a.txt": `${"a".repeat(60)}b\n`, "sub/b.txt": `${"a".repeat(50)}b\n` })
    let scriptDir: string | undefined
    try {
      // Ticks of a timer while the search runs: a thread stuck in the pattern shows none.
      const script = `import { FallbackBackend } from ${JSON.stringify(fallback)}
let ticks = 0
const ticker = setInterval(() => ticks++, 20)
const result = await new FallbackBackend(${options}).grep(${JSON.stringify(tree)}, { pattern: "(a+)+$", timeoutMs: 1500 })
clearInterval(ticker)
console.log(JSON.stringify({ files: result.files.length, timedOut: result.timedOut, ticks }))
process.exit(0)`
      // A file, not `-e`: workers inherit the flags `-e` needs, and fail to start with them.
      scriptDir = makeTree({ "search.mts": script })
      const file = join(scriptDir, "search.mts")
      const child = spawnSync(process.execPath, [file], {
        encoding: "utf8",
        timeout: HANG_GUARD_MS,
      })
      expect(child.status, child.stderr).toBe(0)
      const printed = JSON.parse(child.stdout)
      expect(printed).toMatchObject({ files: 0, timedOut: true })
      expect(printed.ticks).toBeGreaterThan(0)
    } finally {
      rmSync(tree, { recursive: true, force: true })
      if (scriptDir) rmSync(scriptDir, { recursive: true, force: true })
    }
  })

  it.skipIf(!rg)("ripgrep: answers at once (its regex engine never backtracks)", async () => {
    const tree = makeTree({ "a.txt": `${"a".repeat(60)}b\n` })
    try {
      const result = await new RipgrepBackend(rg!).grep(tree, { pattern: "(a+)+$", timeoutMs: 30_000 })
      expect(result).toMatchObject({ files: [], timedOut: false })
    } finally {
      rmSync(tree, { recursive: true, force: true })
    }
  })
})
