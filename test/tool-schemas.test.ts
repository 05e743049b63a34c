// The build's manifest of the built-in tools' JSON Schemas (dist/tool-schemas.json, scripts/tool-schemas.js):
// what the sources compute, and what `toolbelt tools` from the build lists, read from the file.
import { spawnSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"
import { schemaManifest } from "../src/runtime/tool/schema-source.ts"
import "../src/tools/index.ts"
import { buildIsCurrent } from "./fixtures/build-current.ts"

const root = fileURLToPath(new URL("..", import.meta.url))
const manifestFile = join(root, "dist", "tool-schemas.json")

describe.skipIf(!existsSync(manifestFile) || !buildIsCurrent(["src"]))("the build's tool schemas", () => {
  let dir: string | undefined
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it("hold every built-in tool's JSON Schema as the sources compute it", () => {
    expect(JSON.parse(readFileSync(manifestFile, "utf8"))).toEqual(schemaManifest())
  })

  it("are what `toolbelt tools` from the build lists, read from the file", async () => {
    dir = await mkdtemp(join(tmpdir(), "tb-schemas-"))
    // The preload tells whether the command read the manifest.
    const preload = join(dir, "reads.cjs")
    await writeFile(
      preload,
      `const fs = require("node:fs"); const read = fs.readFileSync; let seen = false;
fs.readFileSync = function (path, ...rest) { if (String(path).endsWith("tool-schemas.json")) seen = true; return read.call(this, path, ...rest) };
process.on("exit", () => { if (require("node:worker_threads").isMainThread) process.stderr.write("MANIFEST " + seen + "\\n") });`,
    )
    const result = spawnSync(
      process.execPath,
      ["-r", preload, join(root, "bin", "toolbelt.js"), "tools", "--json", "--cwd", dir],
      {
        encoding: "utf8",
        env: {
          PATH: process.env.PATH,
          HOME: dir,
          TOOLBELT_DATA_DIR: join(dir, "data"),
          TOOLBELT_RUN: "build",
        },
      },
    )
    expect(result.status, result.stderr).toBe(0)
    expect(result.stderr).toContain("MANIFEST true")
    const listed = JSON.parse(result.stdout) as { name: string; inputSchema: unknown }[]
    const manifest = schemaManifest()
    expect(listed.find((tool) => tool.name === "read")?.inputSchema).toEqual(manifest.read)
    expect(listed.find((tool) => tool.name === "bash_output")?.inputSchema).toEqual(manifest.bash_output)
  })
})
