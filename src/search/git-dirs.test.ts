// The repositories on the way to listed files, found beside their stats (in this thread for the first
// files, then on the workers), and the ripgrep backend relying on them when the root is no repository.
import { rmSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { SearchBackend } from "./backend.ts"
import { FallbackBackend } from "./fallback.ts"
import { type Entry, makeTree } from "./fixtures/tree.ts"
import { RipgrepBackend } from "./ripgrep.ts"
import { which } from "./select.ts"
import { StatBatches } from "./stat-batches.ts"

let root: string

beforeAll(() => {
  const many: Record<string, Entry> = {}
  for (let k = 0; k < 5000; k++) many[`plain/f${k}.c`] = "x\n"
  root = makeTree({
    ...many,
    "deep/a/b/.git": "gitdir: ../../../elsewhere\n",
    "deep/a/b/c/x.c": "in a worktree\n",
    "vendor/.git/HEAD": "ref\n",
    "vendor/.git/info/exclude": "secret.c\n",
    "vendor/.gitignore": "generated.c\n",
    "vendor/secret.c": "excluded by the nested repository\n",
    "vendor/generated.c": "ignored by the nested repository\n",
    "vendor/lib/open.c": "listed\n",
    ".gitignore": "plain/\n",
  })
})

afterAll(() => rmSync(root, { recursive: true, force: true }))

describe("StatBatches with a git root", () => {
  it.each([0, 2])(
    "finds every directory holding .git on the way to the files (%i workers)",
    async (threads) => {
      const batches = new StatBatches(threads, 10, root)
      // The first 2048 are stat'ed in this thread; these two go out in the first batch to a worker.
      for (let k = 0; k < 5000; k++) {
        if (k === 2100) batches.add(join(root, "vendor/lib/open.c"))
        if (k === 2200) batches.add(join(root, "deep/a/b/c/x.c"))
        batches.add(join(root, `plain/f${k}.c`))
      }
      const { total, top, gitDirs } = await batches.done()
      expect(total).toBe(5002)
      expect(top).toHaveLength(10)
      expect(gitDirs.sort()).toEqual([join(root, "deep/a/b"), join(root, "vendor")])
    },
  )
})

const backends: SearchBackend[] = [
  new FallbackBackend(),
  ...(which("rg") ? [new RipgrepBackend(which("rg")!)] : []),
]

describe.each(backends.map((backend) => [backend.name, backend] as const))("%s", (_name, backend) => {
  it("applies a nested repository's rules when the root is no repository", async () => {
    const result = await backend.files(root, { pattern: ["*.c"], limit: 5 })
    expect(result.total).toBe(5002)
    const outside = await backend.files(join(root, "vendor"), { pattern: ["*.c"] })
    expect(outside.files.map((file) => file.path)).toEqual([join(root, "vendor/lib/open.c")])
    const all = await backend.files(root, { pattern: ["*.c"] })
    const paths = all.files.map((file) => file.path.slice(root.length + 1))
    expect(paths).not.toContain("vendor/secret.c")
    expect(paths).not.toContain("vendor/generated.c")
    expect(paths).toContain("vendor/lib/open.c")
  })
})
