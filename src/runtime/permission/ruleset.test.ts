import { describe, expect, it } from "vitest"
import type { Action, Rule, Ruleset } from "./rule.ts"
import {
  CompiledRuleset,
  disabled,
  evaluate,
  lastMatch,
  merge,
  permissionOf,
  relevantRules,
} from "./ruleset.ts"
import { match } from "./wildcard.ts"

const rule = (permission: string, pattern: string, action: Action): Rule => ({ permission, pattern, action })

describe("merge", () => {
  it("concatenates in order", () => {
    const a = [rule("bash", "*", "allow")]
    const b = [rule("edit", "*", "deny")]
    expect(merge(a, b)).toEqual([rule("bash", "*", "allow"), rule("edit", "*", "deny")])
  })

  it("adds a permission the first ruleset lacks", () => {
    expect(merge([rule("bash", "*", "allow")], [rule("webfetch", "*", "ask")])).toHaveLength(2)
  })

  it("keeps both rules of the same permission; the later one wins", () => {
    const merged = merge([rule("bash", "*", "allow")], [rule("bash", "*", "deny")])
    expect(merged).toEqual([rule("bash", "*", "allow"), rule("bash", "*", "deny")])
    expect(evaluate("bash", "ls", merged).action).toBe("deny")
  })

  it("merges several rulesets", () => {
    const merged = merge([rule("a", "*", "allow")], [rule("b", "*", "allow")], [rule("c", "*", "deny")])
    expect(merged.map((r) => r.permission)).toEqual(["a", "b", "c"])
  })

  it("an empty ruleset changes nothing", () => {
    const a = [rule("bash", "*", "allow")]
    expect(merge(a, [])).toEqual(a)
    expect(merge([], a)).toEqual(a)
    expect(merge()).toEqual([])
  })

  it("does not modify its inputs", () => {
    const a = [rule("bash", "*", "allow")]
    merge(a, [rule("x", "*", "deny")])
    expect(a).toHaveLength(1)
  })

  it("config after defaults overrides the default ask", () => {
    const defaults = [rule("*", "*", "allow"), rule("doom_loop", "*", "ask")]
    const config = [rule("doom_loop", "*", "allow")]
    expect(evaluate("doom_loop", "bash", merge(defaults, config)).action).toBe("allow")
  })
})

describe("evaluate", () => {
  it("no rule: ask, with pattern *", () => {
    expect(evaluate("bash", "rm -rf /")).toEqual({ permission: "bash", pattern: "*", action: "ask" })
    expect(evaluate("bash", "rm -rf /", [])).toEqual({ permission: "bash", pattern: "*", action: "ask" })
  })

  it("returns the matching rule itself", () => {
    const r = rule("bash", "git *", "allow")
    expect(evaluate("bash", "git status", [r])).toBe(r)
  })

  it("exact permission and pattern", () => {
    expect(evaluate("bash", "ls", [rule("bash", "ls", "allow")]).action).toBe("allow")
  })

  it("a rule of another permission does not apply", () => {
    expect(evaluate("edit", "a.ts", [rule("bash", "*", "allow")]).action).toBe("ask")
  })

  it("a pattern that does not match does not apply", () => {
    expect(evaluate("bash", "rm x", [rule("bash", "git *", "allow")]).action).toBe("ask")
  })

  it("the last matching rule wins", () => {
    const rules = [rule("bash", "*", "allow"), rule("bash", "rm *", "deny")]
    expect(evaluate("bash", "rm -rf x", rules).action).toBe("deny")
    expect(evaluate("bash", "ls", rules).action).toBe("allow")
  })

  it("a catch-all after a specific rule overrides it", () => {
    const rules = [rule("bash", "rm *", "deny"), rule("bash", "*", "allow")]
    expect(evaluate("bash", "rm -rf x", rules).action).toBe("allow")
  })

  it("wildcard permission keys", () => {
    expect(evaluate("mcp_github_search", "*", [rule("mcp_*", "*", "deny")]).action).toBe("deny")
    expect(evaluate("bash", "ls", [rule("*", "*", "allow")]).action).toBe("allow")
    expect(evaluate("mcpx", "*", [rule("mcp_*", "*", "deny")]).action).toBe("ask")
  })

  it("a specific permission after a global one wins", () => {
    const rules = [rule("*", "*", "deny"), rule("bash", "*", "allow")]
    expect(evaluate("bash", "ls", rules).action).toBe("allow")
    expect(evaluate("edit", "a.ts", rules).action).toBe("deny")
  })

  it("a global rule after a specific one wins", () => {
    const rules = [rule("bash", "*", "allow"), rule("*", "*", "deny")]
    expect(evaluate("bash", "ls", rules).action).toBe("deny")
  })

  it("the last match across several rulesets", () => {
    const agent = [rule("*", "*", "allow"), rule("bash", "rm *", "deny")]
    const session = [rule("bash", "*", "ask")]
    expect(evaluate("bash", "rm x", agent, session).action).toBe("ask")
    expect(evaluate("bash", "rm x", session, agent).action).toBe("deny")
    expect(evaluate("edit", "x", agent, session).action).toBe("allow")
  })

  it("an empty ruleset in between is skipped", () => {
    expect(evaluate("bash", "ls", [rule("bash", "*", "deny")], []).action).toBe("deny")
  })

  it("bash: trailing ` *` matches the bare command, not a longer word", () => {
    const rules = [rule("bash", "*", "ask"), rule("bash", "ls *", "allow")]
    expect(evaluate("bash", "ls", rules).action).toBe("allow")
    expect(evaluate("bash", "ls -la", rules).action).toBe("allow")
    expect(evaluate("bash", "lstmeval", rules).action).toBe("ask")
  })

  it("bash: `git commit` does not match `git commit -m x`, `git commit *` does", () => {
    expect(evaluate("bash", "git commit -m x", [rule("bash", "git commit", "allow")]).action).toBe("ask")
    expect(evaluate("bash", "git commit -m x", [rule("bash", "git commit *", "allow")]).action).toBe("allow")
  })

  it("bash: `kill *` matches flags", () => {
    expect(evaluate("bash", "kill -9 1234", [rule("bash", "kill *", "deny")]).action).toBe("deny")
  })

  it("bash: multi-line commands are matched whole", () => {
    const rules = [rule("bash", "*", "allow"), rule("bash", "*rm -rf*", "deny")]
    expect(evaluate("bash", "echo hi\nrm -rf /", rules).action).toBe("deny")
  })

  it("bash: backslashes are not folded", () => {
    const rules = [rule("bash", "echo a/b", "deny")]
    expect(evaluate("bash", "echo a\\b", rules).action).toBe("ask")
  })

  it("paths: `*` crosses directories", () => {
    const rules = [rule("edit", "*", "deny"), rule("edit", "src/*", "allow")]
    expect(evaluate("edit", "src/a/b/c.ts", rules).action).toBe("allow")
    expect(evaluate("edit", "test/a.ts", rules).action).toBe("deny")
  })

  it("paths: backslashes fold for path permissions", () => {
    const rules = [rule("edit", "src/*", "allow")]
    expect(evaluate("edit", "src\\a.ts", rules).action).toBe("allow")
    expect(evaluate("external_directory", "C:\\tmp\\x\\*", [rule("*", "C:/tmp/*", "allow")]).action).toBe(
      "allow",
    )
  })

  it("read: .env asks, .env.example is allowed", () => {
    const rules = [
      rule("read", "*", "allow"),
      rule("read", "*.env", "ask"),
      rule("read", "*.env.*", "ask"),
      rule("read", "*.env.example", "allow"),
    ]
    expect(evaluate("read", "src/index.ts", rules).action).toBe("allow")
    expect(evaluate("read", ".env", rules).action).toBe("ask")
    expect(evaluate("read", "apps/web/.env", rules).action).toBe("ask")
    expect(evaluate("read", ".env.local", rules).action).toBe("ask")
    expect(evaluate("read", ".env.example", rules).action).toBe("allow")
  })

  it("`?` matches one character", () => {
    const rules = [rule("read", "file?.txt", "deny")]
    expect(evaluate("read", "file1.txt", rules).action).toBe("deny")
    expect(evaluate("read", "file10.txt", rules).action).toBe("ask")
  })

  it("external_directory: `<dir>/*` covers files below", () => {
    const rules = [rule("external_directory", "*", "ask"), rule("external_directory", "/tmp/*", "allow")]
    expect(evaluate("external_directory", "/tmp/a/b/*", rules).action).toBe("allow")
    expect(evaluate("external_directory", "/etc/*", rules).action).toBe("ask")
  })

  it("sees a ruleset grown since it was first evaluated", () => {
    const rules: Rule[] = [rule("bash", "*", "allow")]
    expect(evaluate("bash", "rm x", rules).action).toBe("allow")
    rules.push(rule("bash", "rm *", "deny"))
    expect(evaluate("bash", "rm x", rules).action).toBe("deny")
  })
})

describe("the compiled index agrees with a plain last-match scan", () => {
  const naive = (
    rules: Ruleset,
    permission: string,
    pattern: string,
    paths: boolean,
    ignoreCase: boolean,
  ) => {
    for (let i = rules.length - 1; i >= 0; i--) {
      const r = rules[i]!
      if (
        match(permission, r.permission, { ignoreCase }) &&
        match(pattern, r.pattern, { ignoreCase, paths })
      ) {
        return r
      }
    }
    return undefined
  }

  it.each([false, true])("on random rules and inputs (ignoreCase: %s)", (ignoreCase) => {
    let seed = 42
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed / 2 ** 31
    }
    const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!
    const permissions = ["bash", "edit", "read", "*", "mcp_*", "webfetch", "external_directory", "Bash"]
    const atoms = [
      "git",
      " ",
      "status",
      "*",
      "?",
      "/",
      "\\",
      "src",
      ".env",
      "ls",
      "-la",
      "a",
      "A",
      "\n",
      "+",
      "é",
    ]
    const text = () => Array.from({ length: 1 + Math.floor(random() * 5) }, () => pick(atoms)).join("")
    const rules: Rule[] = Array.from({ length: 300 }, () =>
      rule(pick(permissions), random() < 0.1 ? "*" : text(), pick(["allow", "deny", "ask"] as const)),
    )
    const index = new CompiledRuleset(rules, { ignoreCase })
    for (let n = 0; n < 5000; n++) {
      const permission = pick([
        "bash",
        "edit",
        "read",
        "mcp_x",
        "webfetch",
        "external_directory",
        "lsp",
        "BASH",
      ])
      const input = text().replaceAll("*", "x").replaceAll("?", "y")
      const paths = permission === "edit" || permission === "read" || permission === "external_directory"
      expect(index.last(permission, input)).toBe(naive(rules, permission, input, paths, ignoreCase))
    }
  })

  it("case-insensitively", () => {
    const rules = [
      rule("bash", "*", "ask"),
      rule("bash", "Git Status *", "allow"),
      rule("bash", "ÄB*", "deny"),
    ]
    const index = new CompiledRuleset(rules, { ignoreCase: true })
    expect(index.last("bash", "GIT STATUS")?.action).toBe("allow")
    expect(index.last("BASH", "git status -s")?.action).toBe("allow")
    expect(index.last("bash", "äbc")?.action).toBe("deny")
    expect(lastMatch("bash", "git status", [rules], { ignoreCase: false })?.action).toBe("ask")
  })

  it("indexes suffix patterns", () => {
    const rules = [
      rule("read", "*", "allow"),
      rule("read", "*.env", "ask"),
      rule("read", "*\\secret", "deny"),
    ]
    expect(evaluate("read", "a/b/.env", rules).action).toBe("ask")
    expect(evaluate("read", "a/b/.envx", rules).action).toBe("allow")
    expect(evaluate("read", "a\\secret", rules).action).toBe("deny")
    expect(evaluate("read", "a/secret", rules).action).toBe("deny")
  })
})

describe("disabled", () => {
  const tools = ["bash", "edit", "write", "apply_patch", "multiedit", "read", "webfetch"]

  it("nothing is hidden without rules", () => {
    expect(disabled(tools, [])).toEqual(new Set())
  })

  it("a `* deny` for the permission hides the tool", () => {
    expect(disabled(tools, [rule("bash", "*", "deny")])).toEqual(new Set(["bash"]))
  })

  it("a deny with a specific pattern does not hide it", () => {
    expect(disabled(tools, [rule("bash", "rm *", "deny")])).toEqual(new Set())
  })

  it("`bash: {* deny, git * allow}` keeps bash visible (the last rule is git *)", () => {
    expect(disabled(tools, [rule("bash", "*", "deny"), rule("bash", "git *", "allow")])).toEqual(new Set())
  })

  it("a later allow reveals it again", () => {
    expect(disabled(tools, [rule("bash", "*", "deny"), rule("bash", "*", "allow")])).toEqual(new Set())
  })

  it("edit, write, apply_patch and multiedit share `edit`", () => {
    expect(disabled(tools, [rule("edit", "*", "deny")])).toEqual(
      new Set(["edit", "write", "apply_patch", "multiedit"]),
    )
    expect(permissionOf("write")).toBe("edit")
    expect(permissionOf("bash")).toBe("bash")
  })

  it("a `write` rule does not hide write (it asks under edit)", () => {
    expect(disabled(tools, [rule("write", "*", "deny")])).toEqual(new Set())
  })

  it("`* deny` then `bash allow` hides everything but bash", () => {
    const hidden = disabled(tools, [rule("*", "*", "deny"), rule("bash", "*", "allow")])
    expect([...hidden].sort()).toEqual(["apply_patch", "edit", "multiedit", "read", "webfetch", "write"])
  })

  it("wildcard permission keys hide matching tools", () => {
    expect(disabled(["mcp_a", "mcp_b", "bash"], [rule("mcp_*", "*", "deny")])).toEqual(
      new Set(["mcp_a", "mcp_b"]),
    )
  })

  it("an ask does not hide", () => {
    expect(disabled(tools, [rule("*", "*", "ask")])).toEqual(new Set())
  })
})

describe("relevantRules", () => {
  it("keeps the rules whose permission matches", () => {
    const rules = [rule("*", "*", "allow"), rule("bash", "rm *", "deny"), rule("edit", "*", "deny")]
    expect(relevantRules("bash", rules)).toEqual([rule("*", "*", "allow"), rule("bash", "rm *", "deny")])
  })
})
