import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { afterAll, beforeAll, expect, it } from "vitest"
import { findCommand, programArgv, projectDirs } from "./find-command.ts"
import { nearestRoot } from "./nearest-root.ts"

let dir: string
const p = (...parts: string[]) => join(dir, ...parts)

beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "toolbelt-lsp-roots-")))
  for (const file of [
    "project/package.json",
    "project/packages/web/tsconfig.json",
    "project/packages/web/src/app.ts",
    "project/services/api/go.mod",
    "project/dotnet/App/App.csproj",
    "project/node_modules/.bin/local-ls",
    "project/packages/web/node_modules/.bin/nearer-ls",
    "bin/path-ls",
    "bin/not-executable",
    "outside/x.ts",
  ]) {
    mkdirSync(dirname(p(file)), { recursive: true })
    writeFileSync(p(file), file.includes("-ls") ? "#!/usr/bin/env node\n" : "#!/bin/sh\n", {
      mode: file.includes("not-") ? 0o644 : 0o755,
    })
  }
})

afterAll(() => rmSync(dir, { recursive: true, force: true }))

it.each([
  [
    "the nearest directory with a marker",
    "project/packages/web/src/app.ts",
    ["tsconfig.json", "package.json"],
    "project/packages/web",
  ],
  ["a marker further up", "project/packages/web/src/app.ts", ["package.json"], "project"],
  ["the project when no marker is found", "project/services/api/main.py", ["pyproject.toml"], "project"],
  ["markers by extension", "project/dotnet/App/Program.cs", ["*.sln", "*.csproj"], "project/dotnet/App"],
  ["a file outside the project: its own directory", "outside/x.ts", ["package.json"], "outside"],
])("nearestRoot: %s", (_, file, markers, root) => {
  expect(nearestRoot({ file: p(file), markers, directory: p("project") })).toBe(p(root))
})

it("projectDirs: from the root up to the project, and the root alone outside it", () => {
  expect(projectDirs(p("project/packages/web"), p("project"))).toEqual([
    p("project/packages/web"),
    p("project/packages"),
    p("project"),
  ])
  expect(projectDirs(p("outside"), p("project"))).toEqual([p("outside")])
})

it("findCommand: the nearest node_modules/.bin, then PATH; executables only", () => {
  const place = { root: p("project/packages/web"), directory: p("project"), env: { PATH: p("bin") } }
  expect(findCommand({ name: "nearer-ls", ...place })).toBe(
    p("project/packages/web/node_modules/.bin/nearer-ls"),
  )
  expect(findCommand({ name: "local-ls", ...place })).toBe(p("project/node_modules/.bin/local-ls"))
  expect(findCommand({ name: "path-ls", ...place })).toBe(p("bin/path-ls"))
  expect(findCommand({ name: "not-executable", ...place })).toBeUndefined()
  expect(findCommand({ name: "missing-ls", ...place })).toBeUndefined()
  expect(findCommand({ name: p("bin/path-ls"), ...place })).toBe(p("bin/path-ls"))
})

it("programArgv: a node script runs on this Node, anything else as it is", () => {
  expect(programArgv(p("bin/path-ls"), ["--stdio"])).toEqual([process.execPath, p("bin/path-ls"), "--stdio"])
  expect(programArgv("/bin/sh", ["-c"])).toEqual(["/bin/sh", "-c"])
})
