import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, expect, it } from "vitest"
import { FAKE_SERVER } from "../src/adapters/lsp/fixtures/lsp-project.ts"
import { runCli } from "./fixtures/cli.ts"

// A one-shot `toolbelt call` does not start language servers to check an edit unless asked
// (--diagnostics): each call would start one cold. The fake server reports an error for each line
// holding "ERROR:".
const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** A project whose config starts a language server: run trusted (`TOOLBELT_TRUST=1`). */
function project(): { cwd: string; home: string; env: NodeJS.ProcessEnv } {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "toolbelt-call-diagnostics-")))
  const home = realpathSync(mkdtempSync(join(tmpdir(), "toolbelt-call-diagnostics-home-")))
  dirs.push(dir, home)
  const fake = { command: [process.execPath, FAKE_SERVER], extensions: [".fake"] }
  writeFileSync(join(dir, "toolbelt.json"), JSON.stringify({ lsp: { fake } }))
  return { cwd: dir, home, env: { TOOLBELT_TRUST: "1" } }
}

const write = ["call", "write", JSON.stringify({ filePath: "a.fake", content: "ERROR: wrong\n" }), "--json"]

it("toolbelt call writes without waiting for a language server by default", () => {
  const result = runCli(write, project())
  expect(result.status).toBe(0)
  expect(JSON.parse(result.stdout).output).toBe("Wrote file successfully.")
})

it("toolbelt call --diagnostics appends the errors the language server reports", () => {
  const result = runCli([...write, "--diagnostics"], project())
  expect(result.status).toBe(0)
  const output = JSON.parse(result.stdout).output as string
  expect(output).toMatch(/^Wrote file successfully\.\n\nLSP errors detected in this file, please fix:\n/)
  expect(output).toContain("ERROR [1:1]")
})
