import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterEach, describe, expect, it } from "vitest"

// The import rule `npm test` runs (.dependency-cruiser.cjs), run on small trees laid out like src/:
// each wrong import must fail it by the rule's name, and the legal ones must pass.
const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..")
const CONFIG = join(ROOT, ".dependency-cruiser.cjs")
const DEPCRUISE = join(ROOT, "node_modules", "dependency-cruiser", "bin", "dependency-cruiser.mjs")

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** Writes `files` (path under the tree → its imports) and runs the rule on the tree. */
function cruise(files: Record<string, string[]>): { code: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), "toolbelt-imports-"))
  dirs.push(dir)
  for (const [path, imports] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    const lines = imports.map((spec, index) => `import * as m${index} from "${spec}"\nvoid m${index}`)
    writeFileSync(join(dir, path), `${lines.join("\n")}\nexport const here = 1\n`)
  }
  const run = spawnSync(process.execPath, [DEPCRUISE, "src", "--config", CONFIG, "--output-type", "err"], {
    cwd: dir,
    encoding: "utf8",
  })
  return { code: run.status, output: run.stdout + run.stderr }
}

describe("the import rule", () => {
  it("passes a tree whose imports all point down the layers", () => {
    const result = cruise({
      "src/surfaces/cli/main.ts": ["../../compose/toolbelt.ts"],
      "src/compose/toolbelt.ts": ["../adapters/ai/tools.ts", "../tools/edit/edit.ts"],
      "src/adapters/ai/tools.ts": ["../../runtime/settle/settle.ts"],
      "src/tools/edit/edit.ts": [
        "../../runtime/tool/index.ts",
        "../kit/paths.ts",
        "../../platform/fs/lock.ts",
      ],
      "src/tools/multiedit/multiedit.ts": ["../kit/match/replace.ts"],
      "src/tools/kit/match/replace.ts": [],
      "src/tools/kit/paths.ts": ["../../platform/fs/lock.ts"],
      "src/runtime/settle/settle.ts": ["../tool/index.ts", "../../platform/fs/lock.ts"],
      "src/runtime/tool/index.ts": [],
      "src/platform/fs/lock.ts": [],
    })
    expect(result.output).toContain("no dependency violations")
    expect(result.code).toBe(0)
  })

  it.each([
    ["runtime-imports-down-only", { "src/runtime/settle/settle.ts": ["../../tools/edit/edit.ts"] }],
    ["platform-imports-down-only", { "src/platform/store/journal.ts": ["../../runtime/bus/events.ts"] }],
    ["adapters-imports-down-only", { "src/adapters/ai/loop.ts": ["../../compose/toolbelt.ts"] }],
    ["compose-imports-down-only", { "src/compose/toolbelt.ts": ["../surfaces/cli/main.ts"] }],
    [
      "tools-know-only-the-tool-api-of-the-runtime",
      { "src/tools/edit/edit.ts": ["../../runtime/permission/engine.ts"] },
    ],
    ["tools-do-not-import-each-other", { "src/tools/bash_kill/bash_kill.ts": ["../bash/bash.ts"] }],
    ["tools-do-not-import-each-other", { "src/tools/multiedit/multiedit.ts": ["../edit/edit.ts"] }],
    ["tools-do-not-import-each-other", { "src/tools/multiedit/multiedit.ts": ["../edit/replace.ts"] }],
    ["kit-serves-every-tool-and-knows-none", { "src/tools/kit/paths.ts": ["../read/read.ts"] }],
    [
      "platform-fixtures-import-down-only",
      { "src/platform/search/fixtures/harness.ts": ["../../../runtime/settle/settle.ts"] },
    ],
    [
      "no-cycles",
      {
        "src/platform/shell/parse/scan.ts": ["./walk.ts"],
        "src/platform/shell/parse/walk.ts": ["./scan.ts"],
      },
    ],
  ])("fails %s on a wrong import", (rule, files: Record<string, string[]>) => {
    const tree: Record<string, string[]> = { ...files }
    // Every imported file exists, so the rule judges the import, not a missing module.
    for (const [from, imports] of Object.entries(files))
      for (const spec of imports) {
        const target = join(dirname(from), spec)
        tree[target] ??= []
      }
    const result = cruise(tree)
    expect(result.code).not.toBe(0)
    expect(result.output).toContain(`error ${rule}:`)
  })

  it("leaves tests and fixtures free to import any layer", () => {
    const result = cruise({
      "src/tools/edit/edit.test.ts": ["../../compose/toolbelt.ts"],
      "src/tools/kit/fixtures/harness.ts": ["../../edit/edit.ts"],
      "src/compose/toolbelt.ts": [],
      "src/tools/edit/edit.ts": [],
    })
    expect(result.code).toBe(0)
  })
})
