import { spawnSync } from "node:child_process"
import { describe, expect, it } from "vitest"
import { CallerRegexError, compileCallerRegex } from "./caller-regex.ts"

/** A regression would hold the thread for ever: the match runs in a child, killed after this. */
const HANG_GUARD_MS = 60_000
const MODULE = new URL("./caller-regex.ts", import.meta.url).pathname

describe("compileCallerRegex", () => {
  it("runs a pattern that backtracks exponentially in bounded time, with the same answers", () => {
    const script = `import { compileCallerRegex } from ${JSON.stringify(MODULE)}
const text = "a".repeat(60) + "b"
const answers = [
  compileCallerRegex("(a+)+$", "m").test(text),
  compileCallerRegex("(a|aa)+c", "").test(text),
  compileCallerRegex("^(a+)+b$", "m").test(text),
  compileCallerRegex("(x+x+)+y", "s").test("x".repeat(5000)),
]
console.log(JSON.stringify(answers))`
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      encoding: "utf8",
      timeout: HANG_GUARD_MS,
    })
    expect(child.status, child.stderr).toBe(0)
    expect(JSON.parse(child.stdout)).toEqual([false, false, true, false])
  })

  it.each([
    ["(", "not a valid regular expression"],
    ["(a)\\1", "back-references"],
    ["(?<n>a)\\k<n>", "back-references"],
    ["ready(?=!)", "look-around"],
    ["(?<!x)ready", "look-around"],
  ])("refuses %s, saying why", (source, says) => {
    expect(() => compileCallerRegex(source)).toThrow(CallerRegexError)
    expect(() => compileCallerRegex(source)).toThrow(says)
  })

  it("takes look-around and back-reference look-alikes that are characters", () => {
    expect(compileCallerRegex("[(?=]x").test("=x")).toBe(true)
    expect(compileCallerRegex("\\(?=x").test("(=x")).toBe(true)
    expect(compileCallerRegex("[\\1]").test("\u0001")).toBe(true)
  })

  it("refuses flags the linear engine does not run", () => {
    expect(() => compileCallerRegex("a", "i")).toThrow(/linear engine/)
    expect(() => compileCallerRegex("a", "u")).toThrow(/linear engine/)
  })
})
