import { describe, expect, it } from "vitest"
import { SpawnError } from "../../platform/shell/run/index.ts"
import { ToolFailure } from "../../runtime/tool/index.ts"
import { spawnFailure } from "./spawn-failure.ts"

const cause = (code: string) => Object.assign(new Error(`spawn ${code}`), { code })

describe("spawnFailure", () => {
  it("a command too long to start a shell with is a failure that says what to do", () => {
    const failure = spawnFailure(
      new SpawnError("Could not start /bin/bash: spawn E2BIG.", { cause: cause("E2BIG") }),
    )
    expect(failure).toBeInstanceOf(ToolFailure)
    expect((failure as ToolFailure).message).toMatch(
      /^The command is longer than the system lets a shell be started with.*Write a long script to a file/,
    )
  })

  it("a program that did not start is a failure with the SpawnError's message, which says what to check", () => {
    const message =
      "Could not start /bin/bash: spawn ENOENT. Check that /bin/bash exists and can be run, and that the working directory /p exists."
    const failure = spawnFailure(new SpawnError(message, { cause: cause("ENOENT") }))
    expect(failure).toBeInstanceOf(ToolFailure)
    expect((failure as ToolFailure).message).toBe(message)
  })

  it("passes any other error on as it is", () => {
    const error = new Error("other")
    expect(spawnFailure(error)).toBe(error)
  })
})
