import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { isToolFailure } from "../../runtime/tool/index.ts"
import { readSettings } from "../kit/shell-settings.ts"
import { checkDirectory, checkReadiness, checkTimeout, pickShell } from "./check-arguments.ts"

const settings = readSettings({ directory: tmpdir(), shell: { timeout: 1000, max_timeout: 5000 } })

/** The message of the ToolFailure `run` throws; fails the test when it returns or throws anything else. */
function refusal(run: () => unknown): string {
  try {
    run()
  } catch (error) {
    if (isToolFailure(error)) return (error as Error).message
    throw error
  }
  throw new Error("expected a refusal")
}

describe("checkTimeout", () => {
  it.each([
    { timeout: undefined, background: false, expected: 1000 },
    { timeout: 2000, background: false, expected: 2000 },
    { timeout: 5000, background: false, expected: 5000 },
    { timeout: undefined, background: true, expected: undefined },
  ])("timeout $timeout, background $background: $expected", ({ timeout, background, expected }) => {
    expect(checkTimeout({ timeout, background, settings })).toBe(expected)
  })

  it.each([
    { timeout: 5001, background: false, says: "timeout 5001 ms is more than the maximum of 5000 ms" },
    { timeout: 10, background: true, says: "timeout applies to commands that run in the foreground" },
  ])("refuses timeout $timeout with background $background", ({ timeout, background, says }) => {
    expect(refusal(() => checkTimeout({ timeout, background, settings }))).toContain(says)
  })
})

describe("checkReadiness", () => {
  const none = { port: undefined, pattern: undefined, timeout: undefined, background: true, settings }

  it("asks for nothing when no readiness option is given", () => {
    expect(checkReadiness(none)).toBeUndefined()
    expect(checkReadiness({ ...none, background: false })).toBeUndefined()
  })

  it("waits for a port, a pattern (multi-line) or both, at most the configured maximum by default", () => {
    expect(checkReadiness({ ...none, port: 8080 })).toEqual({ port: 8080, timeoutMs: 5000 })
    const both = checkReadiness({ ...none, port: 1, pattern: "^ready$", timeout: 40 })
    expect(both).toMatchObject({ port: 1, timeoutMs: 40 })
    expect(both?.pattern?.test("starting\nready\n")).toBe(true)
  })

  it.each([
    { given: { timeout: 100 }, says: "ready_timeout needs ready_port or ready_pattern" },
    { given: { port: 80, background: false }, says: "only apply to background jobs" },
    {
      given: { pattern: "(" },
      says: 'ready_pattern "(" cannot be used: it is not a valid regular expression',
    },
    { given: { pattern: "(a)\\1" }, says: "back-references" },
    { given: { pattern: "ready(?=!)" }, says: "look-around" },
    { given: { port: 80, timeout: 5001 }, says: "ready_timeout 5001 ms is more than the maximum of 5000 ms" },
  ])("refuses $given", ({ given, says }) => {
    expect(refusal(() => checkReadiness({ ...none, ...given }))).toContain(says)
  })
})

describe("pickShell", () => {
  it("refuses a configured shell that does not exist, naming it", () => {
    const missing = readSettings({ directory: tmpdir(), shell: "/nonexistent/shell-xyz" })
    expect(refusal(() => pickShell(missing))).toContain("/nonexistent/shell-xyz")
  })
})

describe("checkDirectory", () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "toolbelt-check-arguments-"))
    await writeFile(join(dir, "file"), "")
  })
  afterAll(() => rm(dir, { recursive: true, force: true }))

  it("accepts an existing directory", () => {
    expect(() => checkDirectory(dir, "sub")).not.toThrow()
  })

  it.each([
    { name: "missing", given: "missing", says: 'workdir "missing"' },
    { name: "file", given: "file", says: 'workdir "file"' },
    { name: "missing", given: undefined, says: "The project directory" },
  ])("refuses $name (workdir $given)", ({ name, given, says }) => {
    const message = refusal(() => checkDirectory(join(dir, name), given))
    expect(message).toContain(says)
    expect(message).toContain("does not exist or is not a directory")
  })
})
