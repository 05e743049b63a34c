import { describe, expect, it } from "vitest"
import { riskyArguments } from "./always.ts"
import { commandKey } from "./arity.ts"
import { RISKY_ARGUMENTS } from "./risky-arguments.ts"

describe("risky arguments table", () => {
  it.each(Object.keys(RISKY_ARGUMENTS))("%s is a key the arity lookup names a command by", (key) => {
    expect(commandKey([...key.split(" "), "x"]).join(" ")).toBe(key)
  })

  it.each(Object.entries(RISKY_ARGUMENTS))("%s says why: %s", (_key, why) => {
    expect(why.length).toBeGreaterThan(10)
  })

  it.each<[string[], boolean]>([
    [["rm", "-rf", "x"], true],
    [["/bin/rm", "x"], true],
    [["git", "-C", "sub", "push", "--force"], true],
    [["git", "stash", "drop"], true],
    [["git", "stash", "list"], false],
    [["git", "status"], false],
    [["sudo", "-u", "bob", "rm", "x"], true],
    [["timeout", "5", "git", "reset", "--hard"], true],
    [["sudo", "ls"], false],
    [["ls", "-la"], false],
    [["npm", "test"], false],
  ])("%j: %s", (words, risky) => {
    expect(riskyArguments(words) !== undefined).toBe(risky)
  })
})
