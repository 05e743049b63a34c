// The ripgrep backend lists name globs with `--glob`, which overrides the ignore rules; these trees hold
// ignored files that such a glob matches, and both backends must still leave them out.
import { rmSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { SearchBackend } from "./backend.ts"
import { FallbackBackend } from "./fallback.ts"
import { makeTree } from "./fixtures/tree.ts"
import { LeakFilter } from "./override-leaks.ts"
import { fileShaped, nameGlobs, RipgrepBackend } from "./ripgrep.ts"
import { which } from "./select.ts"

const rg = which("rg")
const backends: SearchBackend[] = [new FallbackBackend(), ...(rg ? [new RipgrepBackend(rg)] : [])]

let root: string
let plain: string

beforeAll(() => {
  root = makeTree({
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
  plain = makeTree({ ".gitignore": "*.c\n", "a.c": "not a repository: .gitignore does not count\n" })
})

afterAll(() => {
  rmSync(root, { recursive: true, force: true })
  rmSync(plain, { recursive: true, force: true })
})

describe.each(backends.map((backend) => [backend.name, backend] as const))("%s", (_name, backend) => {
  const listed = async (pattern: string[], options: { hidden?: boolean } = {}, at = root) =>
    (await backend.files(at, { pattern, ...options })).files
      .map((file) => file.path.slice(at.length + 1))
      .sort()

  it("leaves out ignored files that a name glob matches", async () => {
    expect(await listed(["*.c"])).toEqual([
      ".cache.c/deep.c",
      ".hidden.c",
      "lib/gen.c",
      "lib/util.c",
      "main.c",
      "vendor/open.c",
      "vendor/x.tmp.c",
    ])
    expect(await listed(["Kconfig"])).toEqual(["Kconfig"])
  })

  it("leaves out hidden files and directories a name glob matches when hidden files are off", async () => {
    expect(await listed(["*.c"], { hidden: false })).toEqual([
      "lib/gen.c",
      "lib/util.c",
      "main.c",
      "vendor/open.c",
      "vendor/x.tmp.c",
    ])
  })

  it("counts only what is listed, and keeps the newest of those", async () => {
    const all = await backend.files(root, { pattern: ["*.c"] })
    const top = await backend.files(root, { pattern: ["*.c"], limit: 2 })
    expect(top.total).toBe(7)
    expect(top.files).toEqual(all.files.slice(0, 2))
  })

  it("applies no .gitignore outside a repository", async () => {
    expect(await listed(["*.c"], {}, plain)).toEqual(["a.c"])
  })
})

describe("nameGlobs for overrides", () => {
  const fileShaped = (name: string) => !name.startsWith("#")
  it("expands braces and refuses globs that look at more than the name", () => {
    expect(nameGlobs(["**/*.c"], fileShaped)).toEqual(["*.c"])
    expect(nameGlobs(["*.{c,h}", "Kconfig"], fileShaped)).toEqual(["*.c", "*.h", "Kconfig"])
    expect(nameGlobs(["src/*.c"], fileShaped)).toBeUndefined()
    expect(nameGlobs(["#x"], fileShaped)).toBeUndefined()
    expect(nameGlobs(undefined, fileShaped)).toBeUndefined()
  })
})

describe("fileShaped", () => {
  it("takes literal names and *.ext, never a name that would also match every ignored directory", () => {
    expect(["Kconfig", "*.c", "*.test.ts", ".gitignore"].map(fileShaped)).toEqual([true, true, true, true])
    expect(["*", "*test*", "*_x", "a*.c", "#notes", "[ab].c"].map(fileShaped)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ])
  })
})

describe("LeakFilter", () => {
  it("judges a path by the ignore files rg listed, and by a hidden directory above it", () => {
    const filter = new LeakFilter(root, false)
    for (const rel of [".gitignore", "lib/.ignore"]) {
      const slash = rel.lastIndexOf("/")
      filter.saw(slash < 0 ? "" : rel.slice(0, slash), rel.slice(slash + 1))
    }
    expect(
      ["main.c", "gen.c", "out.c/inner.c", "lib/local.c", "lib/gen.c", ".cache.c/deep.c"].map((rel) =>
        filter.allowed(rel),
      ),
    ).toEqual([true, false, false, false, true, false])
  })
})
