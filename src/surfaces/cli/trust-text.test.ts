import { describe, expect, it } from "vitest"
import type { ProjectTrust } from "../../runtime/config/trust/project-trust.ts"
import { parseTrustAnswer } from "./trust-prompt.ts"
import { contributionLines, leftOutSection, trustedForRunWarning, unknownToolReason } from "./trust-text.ts"

const toolFile = {
  kind: "tool-file",
  file: "/repo/app/.toolbelt/tools/deploy.ts",
  detail: "tool file app/.toolbelt/tools/deploy.ts runs its code",
} as const
const server = {
  kind: "mcp-server",
  file: "/repo/app/toolbelt.json",
  detail: 'MCP server "db" runs `node db.js`',
} as const
const rule = {
  kind: "permission",
  file: "/repo/app/toolbelt.json",
  detail: 'permission.bash["rm *"] allows',
} as const

function trust(overrides: Partial<ProjectTrust> = {}): ProjectTrust {
  const contributions = [toolFile, server, rule]
  return {
    directory: "/repo/app",
    trusted: false,
    reason: "untrusted",
    contributions,
    fingerprint: "f",
    leftOut: contributions,
    howToTrust: "toolbelt trust /repo/app",
    ...overrides,
  }
}

describe("parseTrustAnswer", () => {
  it.each([
    ["", "no"],
    ["  ", "no"],
    ["n", "no"],
    ["No", "no"],
    ["t", "remember"],
    ["TRUST", "remember"],
    ["remember", "remember"],
    ["o", "once"],
    ["once", "once"],
    ["y", undefined],
    ["yes", undefined],
    ["maybe", undefined],
  ])("%j is %s", (line, answer) => {
    expect(parseTrustAnswer(line)).toBe(answer)
  })
})

describe("the trust texts", () => {
  it("names a contribution's file unless its detail does", () => {
    expect(contributionLines([toolFile, server], "/repo/app")).toEqual([
      "tool file app/.toolbelt/tools/deploy.ts runs its code",
      'MCP server "db" runs `node db.js`  (toolbelt.json)',
    ])
  })

  it("an unknown tool a tool file defines names that file; its named exports too", () => {
    for (const name of ["deploy", "deploy_staging"]) {
      const reason = unknownToolReason(trust(), name)
      expect(reason).toContain(toolFile.file)
      expect(reason).toContain("toolbelt trust /repo/app")
    }
  })

  it("another unknown tool names what else the project would add; rules alone add no tool", () => {
    const reason = unknownToolReason(trust(), "db_query")
    expect(reason).toContain('MCP server "db"')
    expect(reason).not.toContain("rm *")
    expect(unknownToolReason(trust({ leftOut: [rule] }), "db_query")).toBeUndefined()
    expect(
      unknownToolReason(trust({ trusted: true, reason: "store", leftOut: [] }), "deploy"),
    ).toBeUndefined()
  })

  it("tools' section lists what was left out and the command, and is empty when nothing was", () => {
    expect(leftOutSection(trust({ reason: "changed" }))).toBe(
      "\nNot run until you trust this project:\n" +
        "  (trusted before, but what it would run has changed since)\n" +
        "  tool file app/.toolbelt/tools/deploy.ts runs its code\n" +
        '  MCP server "db" runs `node db.js`  (toolbelt.json)\n' +
        '  permission.bash["rm *"] allows  (toolbelt.json)\n' +
        "Review them, then run: toolbelt trust /repo/app\n",
    )
    expect(leftOutSection(trust({ trusted: true, reason: "store", leftOut: [] }))).toBe("")
  })

  it("warns only when --trust or the variable applied something", () => {
    const applied = { trusted: true, leftOut: [] }
    expect(trustedForRunWarning(trust({ ...applied, reason: "option" }), "call")).toContain("(--trust)")
    expect(trustedForRunWarning(trust({ ...applied, reason: "env" }), "call")).toContain("(TOOLBELT_TRUST=1)")
    expect(trustedForRunWarning(trust({ ...applied, reason: "store" }), "call")).toBeUndefined()
    expect(
      trustedForRunWarning(trust({ ...applied, reason: "option", contributions: [] }), "call"),
    ).toBeUndefined()
  })
})
