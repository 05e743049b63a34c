// Writes through symlinks, driven through the real tools: a dangling link inside the project must not
// let any writing tool create a file outside it without asking `external_directory`, and a link planted
// after the check (while the `edit` ask waits) must not redirect the write.

import { mkdir, readdir, readFile, readlink, rm, symlink, writeFile } from "node:fs/promises"
import { join, relative } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { RulePermissions } from "../../../runtime/permission/simple.ts"
import { ApplyPatchTool } from "../../apply_patch/apply_patch.ts"
import { EditTool } from "../../edit/edit.ts"
import { MultiEditTool } from "../../multiedit/multiedit.ts"
import { ReadTool } from "../../read/read.ts"
import { WriteTool } from "../../write/write.ts"
import { askOutside, completed, createHarness, errorOf, type Harness } from "../fixtures/harness.ts"

let h: Harness

beforeEach(async () => {
  h = await createHarness({
    write: WriteTool,
    edit: EditTool,
    multiedit: MultiEditTool,
    apply_patch: ApplyPatchTool,
    read: ReadTool,
  })
})

afterEach(async () => {
  await h.close()
})

/** Every way a writing tool creates `path` (relative to the project) with `text`. */
const creators: Record<string, (path: string, text: string) => [string, unknown]> = {
  write: (path, text) => ["write", { filePath: path, content: text }],
  edit: (path, text) => ["edit", { filePath: path, oldString: "", newString: text }],
  multiedit: (path, text) => ["multiedit", { filePath: path, edits: [{ oldString: "", newString: text }] }],
  "apply_patch add": (path, text) => [
    "apply_patch",
    { patchText: `*** Begin Patch\n*** Add File: ${path}\n+${text}\n*** End Patch` },
  ],
}

/** Everything under `dir`, recursively, as relative paths (links listed, not followed). */
async function tree(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true })
  return entries.map((entry) => relative(dir, join(dir, entry))).sort()
}

/** The link layouts that must all count as outside: each returns the path to write, relative. */
const layouts: Record<string, (h: Harness) => Promise<{ path: string; lands: string }>> = {
  "dangling link to a file outside (absolute)": async (h) => {
    await symlink(join(h.outside, "authorized_keys"), h.path("keys"))
    return { path: "keys", lands: join(h.outside, "authorized_keys") }
  },
  "dangling link to a file outside (relative)": async (h) => {
    await mkdir(h.path("sub"))
    await symlink("../../outside/profile", h.path("sub", "profile"))
    return { path: "sub/profile", lands: join(h.outside, "profile") }
  },
  "dangling link to a missing directory outside, new file under it": async (h) => {
    await symlink(join(h.outside, "not", "yet"), h.path("dir"))
    return { path: "dir/deeper/file.txt", lands: join(h.outside, "not", "yet", "deeper", "file.txt") }
  },
  "link to an existing directory outside, new file under it": async (h) => {
    await symlink(h.outside, h.path("out"))
    return { path: "out/new/file.txt", lands: join(h.outside, "new", "file.txt") }
  },
  "chain of links ending dangling outside": async (h) => {
    await symlink(join(h.outside, "end.txt"), h.path("third"))
    await symlink("third", h.path("second"))
    await symlink(h.path("second"), h.path("first"))
    return { path: "first", lands: join(h.outside, "end.txt") }
  },
  "a link in a parent directory the write creates": async (h) => {
    await mkdir(h.path("a"))
    await symlink("../../outside/b", h.path("a", "b"))
    return { path: "a/b/c/d.txt", lands: join(h.outside, "b", "c", "d.txt") }
  },
}

describe("creating a file through a symlink that leads outside asks external_directory", () => {
  for (const [layout, setup] of Object.entries(layouts)) {
    for (const [tool, make] of Object.entries(creators)) {
      it(`${tool}: ${layout}`, async () => {
        const { path } = await setup(h)
        const [name, input] = make(path, "owned")
        const error = errorOf(await h.call(name, input, { permission: askOutside() }))
        expect(error).toMatch(/reject/i)
        expect(h.asks.map((ask) => ask.permission)).toContain("external_directory")
        expect(await tree(h.outside)).toEqual([])
      })
    }
    it(`apply_patch move: ${layout}`, async () => {
      const { path } = await setup(h)
      await writeFile(h.path("source.txt"), "moved\n")
      const patch = `*** Begin Patch\n*** Update File: source.txt\n*** Move to: ${path}\n*** End Patch`
      errorOf(await h.call("apply_patch", { patchText: patch }, { permission: askOutside() }))
      expect(await tree(h.outside)).toEqual([])
      expect(await readFile(h.path("source.txt"), "utf8")).toBe("moved\n")
    })
    it(`once approved, the file lands where the permission was asked for: ${layout}`, async () => {
      const { path, lands } = await setup(h)
      const [name, input] = creators.edit!(path, "approved")
      completed(await h.call(name, input, { permission: askOutside(async () => "once") }))
      const ask = h.asks.find((request) => request.permission === "external_directory")!
      expect(ask.metadata).toMatchObject({ filepath: lands })
      expect(await readFile(lands, "utf8")).toBe("approved")
    })
  }

  it("a dangling link that stays inside the project creates its target without asking", async () => {
    await symlink("real.txt", h.path("alias.txt"))
    completed(await h.call("edit", { filePath: "alias.txt", oldString: "", newString: "in" }))
    expect(await readFile(h.path("real.txt"), "utf8")).toBe("in")
    expect(await readlink(h.path("alias.txt"))).toBe("real.txt")
    expect(h.asks.map((ask) => ask.permission)).toEqual(["edit"])
  })

  it("reading an outside file through a link asks, as before", async () => {
    await writeFile(join(h.outside, "secret"), "s\n")
    await symlink(join(h.outside, "secret"), h.path("innocent.txt"))
    errorOf(await h.call("read", { filePath: "innocent.txt" }, { permission: askOutside() }))
    expect(h.asks.map((ask) => ask.permission)).toEqual(["external_directory"])
  })
})

describe("a symlink planted after the check does not redirect the write", () => {
  /** Allows everything; when the `edit` ask comes, plants `link` → `target` first (as a racing process would). */
  const planting = (link: string, target: string) =>
    new RulePermissions({
      rules: [
        { permission: "*", pattern: "*", action: "allow" },
        { permission: "edit", pattern: "*", action: "ask" },
      ],
      decide: async () => {
        await rm(link, { force: true })
        await symlink(target, link)
        return "once"
      },
    })

  it("edit creating a file", async () => {
    const permission = planting(h.path("new.txt"), join(h.outside, "planted"))
    const error = errorOf(
      await h.call("edit", { filePath: "new.txt", oldString: "", newString: "x" }, { permission }),
    )
    expect(error).toMatch(/symlink in the path was created or changed meanwhile/)
    expect(await tree(h.outside)).toEqual([])
  })

  it("multiedit replacing a file", async () => {
    await writeFile(h.path("a.txt"), "one\n")
    const permission = planting(h.path("a.txt"), join(h.outside, "planted"))
    const input = { filePath: "a.txt", edits: [{ oldString: "one", newString: "two" }] }
    const error = errorOf(await h.call("multiedit", input, { permission }))
    expect(error).toMatch(/Nothing was written/)
    expect(await tree(h.outside)).toEqual([])
  })

  it("a directory swapped for a link to outside", async () => {
    await mkdir(h.path("dir"))
    const permission = new RulePermissions({
      rules: [
        { permission: "*", pattern: "*", action: "allow" },
        { permission: "edit", pattern: "*", action: "ask" },
      ],
      decide: async () => {
        await rm(h.path("dir"), { recursive: true })
        await symlink(h.outside, h.path("dir"))
        return "once"
      },
    })
    const patch = "*** Begin Patch\n*** Add File: dir/new.txt\n+x\n*** End Patch"
    const error = errorOf(await h.call("apply_patch", { patchText: patch }, { permission }))
    expect(error).toMatch(/No file was changed/)
    expect(await tree(h.outside)).toEqual([])
  })
})

describe("write: a symlink planted while the edit ask waits", () => {
  it("does not redirect a new file outside", async () => {
    const permission = new RulePermissions({
      rules: [
        { permission: "*", pattern: "*", action: "allow" },
        { permission: "edit", pattern: "*", action: "ask" },
      ],
      decide: async () => {
        await symlink(join(h.outside, "planted"), h.path("new.txt"))
        return "once"
      },
    })
    const error = errorOf(await h.call("write", { filePath: "new.txt", content: "x" }, { permission }))
    expect(error).toMatch(/symlink in the path was created or changed meanwhile/)
    expect(await tree(h.outside)).toEqual([])
  })
})
