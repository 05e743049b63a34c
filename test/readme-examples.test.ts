// The README shows what the command line prints: each console block's commands are run from this clone
// and must print exactly the output shown under them (scripts/readme-examples.ts).
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { examples, README, run } from "../scripts/readme-examples.ts"

const shown = examples(readFileSync(README, "utf8"))

describe("README examples", () => {
  it("has command-line examples to check", () => {
    expect(shown.length).toBeGreaterThan(0)
  })

  it.each(shown)("$command prints what the README shows", ({ command, shown }) => {
    expect(run(command), `the README is out of date: run "npm run readme" to update it`).toBe(shown)
  })
})
