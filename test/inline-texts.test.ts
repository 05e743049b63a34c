// The CLI bundle's tool texts (scripts/inline-texts.js): a `loadText(import.meta.url, "x.txt")` call becomes
// the text it would have read, trimmed; anything else is left as it is. Then the real build: no chunk reads
// a tool text at run time, and the texts it carries are the sources' own.
import { spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
// @ts-expect-error: a plain JavaScript build script, without types.
import { inlineTexts } from "../scripts/inline-texts.js"

const root = fileURLToPath(new URL("..", import.meta.url))

describe("inlineTexts", () => {
  const files: Record<string, string> = {
    "/d/tools/a/description.txt": '  Reads a file.\nSay "which" one.\n\n',
    "/d/tools/a/notes.txt": "second",
  }
  const read = (path: string) => {
    const text = files[path]
    if (text === undefined) throw new Error(`no file ${path}`)
    return text
  }

  it("puts each literal text in place of its call, trimmed as loadText returns it", () => {
    const code = [
      'const description = loadText(import.meta.url, "description.txt");',
      'const notes = loadText(import.meta.url, "notes.txt");',
    ].join("\n")
    const out = inlineTexts(code, "/d/tools/a/a.js", read)
    expect(out).toBe(
      ['const description = "Reads a file.\\nSay \\"which\\" one.";', 'const notes = "second";'].join("\n"),
    )
    // The literal is the text: evaluated, it equals what loadText gives.
    expect(new Function(`${out}; return [description, notes]`)()).toEqual([
      'Reads a file.\nSay "which" one.',
      "second",
    ])
  })

  it("leaves a module without such calls, and calls it cannot read at build time, as they are", () => {
    expect(inlineTexts("export const x = 1", "/d/tools/a/a.js", read)).toBeNull()
    // A file name built at run time (a template with a placeholder), and another module's URL.
    const computed = `loadText(import.meta.url, \`$\{name}.txt\`); loadText(other, "description.txt")`
    expect(inlineTexts(computed, "/d/tools/a/a.js", read)).toBeNull()
  })

  it("fails the build when a text is missing, rather than shipping a tool without its description", () => {
    expect(() => inlineTexts('loadText(import.meta.url, "gone.txt")', "/d/tools/a/a.js", read)).toThrow(
      /no file/,
    )
  })
})

const dist = join(root, "dist")

describe.skipIf(!existsSync(join(dist, "cli.bundle.cjs")))("the CLI build's tool texts", () => {
  it("no chunk reads a tool text at run time, and the built tools describe themselves with the sources' texts", () => {
    for (const name of readdirSync(dist).filter((file) => file.startsWith("cli.bundle")))
      expect(readFileSync(join(dist, name), "latin1"), name).not.toContain("loadText(")
    const home = mkdtempSync(join(tmpdir(), "toolbelt-texts-"))
    try {
      const listed = spawnSync(process.execPath, [join(root, "bin", "toolbelt.js"), "tools", "--json"], {
        cwd: home,
        encoding: "utf8",
        env: {
          PATH: process.env.PATH ?? "",
          HOME: home,
          TOOLBELT_DATA_DIR: join(home, "data"),
          TOOLBELT_RUN: "build",
        },
      })
      expect(listed.stderr).toBe("")
      const tools = JSON.parse(listed.stdout) as { name: string; description: string }[]
      for (const tool of ["read", "glob", "edit", "write"]) {
        const text = readFileSync(join(root, "src", "tools", tool, "description.txt"), "utf8").trim()
        expect(tools.find((listed) => listed.name === tool)?.description, tool).toBe(text)
      }
    } finally {
      rmSync(home, { recursive: true, force: true })
    }
  })
})
