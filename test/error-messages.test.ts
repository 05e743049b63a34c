import { resolve } from "node:path"
import { describe, expect, it } from "vitest"
import { checkMessages, describe as describeFinding } from "../scripts/messages/check.ts"
import { problems } from "../scripts/messages/rules.ts"
import { messagesIn } from "../scripts/messages/scan.ts"

// The error-message convention (ARCHITECTURE.md, "Error messages") held over src/: sentence case, a
// period, and what to do for an error someone can act on. `node scripts/check-messages.ts` prints the
// same report, the pending messages (folders another change is editing) included.
const ROOT = resolve(import.meta.dirname, "..")

describe("the error-message convention", () => {
  it("holds for every message in src/ outside the pending folders and files, with no stale allowance", () => {
    const report = checkMessages(ROOT)
    expect(report.findings.map(describeFinding)).toEqual([])
    expect(report.stale.map((allowance) => `${allowance.file}: ${allowance.why}`)).toEqual([])
  })

  it.each([
    ["Error", "The store is closed.", []],
    ["Error", "the store is closed.", ["lower-case"]],
    ["Error", "The store is closed", ["no-period"]],
    ["Error", "oldString must differ from newString.", []],
    ["Error", "--port needs a number.", []],
    ["ToolFailure", "Cannot read notes.md: it is a directory.", ["no-remedy"]],
    ["ToolFailure", "Cannot read notes.md: it is a directory. Use list to see what is in it.", []],
    ["ToolFailure", '"enabled" must be true or false.', []],
    ["ToolFailure", "Could not start {file}: {error.message}", ["no-period", "no-remedy"]],
    ["ToolFailure", "Could not start {file}: {asSentence(error.message)} Check the path.", []],
    ["ToolFailure", "Cannot write {path}: {reason}", ["no-remedy"]],
    ["ToolFailure", "File not found: {file}", ["no-period", "no-remedy"]],
  ])("%s %j breaks %j", (site, text, expected) => {
    expect(problems(site, text)).toEqual(expected)
  })

  it("a tool's name or a parameter's may start a message", () => {
    expect(problems("ToolFailure", "glob needs a pattern.", new Set(["glob"]))).toEqual([])
    expect(problems("ToolFailure", "glob needs a pattern.")).toEqual(["lower-case"])
  })

  it("reads a message whole across templates, `+`, choices and `Tool.ToolFailure`", () => {
    const $ = "$" // the scanned source's template holes, kept out of this file's strings
    const source = [
      `throw new Tool.ToolFailure(\`Cannot read ${$}{path}: \` + 'it is gone.')`,
      `throw new Error(ok ? 'Fine.' : \`Broken at ${$}{line}\`)`,
      "const value = { ok: false, message: 'nope' }",
      `fail(\`line ${$}{n}: bad\`)`,
      "throw new Error(message)",
    ].join("\n")
    expect(messagesIn("x.ts", source).map(({ line, site, text }) => ({ line, site, text }))).toEqual([
      { line: 1, site: "ToolFailure", text: "Cannot read {path}: it is gone." },
      { line: 2, site: "Error", text: "Fine." },
      { line: 2, site: "Error", text: "Broken at {line}" },
      { line: 3, site: "data", text: "nope" },
      { line: 4, site: "fail", text: "line {n}: bad" },
    ])
  })
})
