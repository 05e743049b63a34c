import { describe, expect, it } from "vitest"
import { SpawnError } from "../../platform/shell/run/index.ts"
import { ToolFailure } from "../../runtime/tool/index.ts"
import { spawnFailure } from "./spawn-failure.ts"

const shell = { path: "/bin/bash" } as Parameters<typeof spawnFailure>[1]
const cause = (code: string) => Object.assign(new Error(`spawn ${code}`), { code })

describe("spawnFailure", () => {
  it.each([
    [
      "a command too long to start a shell with",
      "E2BIG",
      /^The command is longer than the system lets a shell be started with/,
    ],
    [
      "a shell that is not there",
      "ENOENT",
      /^Could not start \/bin\/bash: spawn ENOENT\. Check that \/bin\/bash exists/,
    ],
  ])("%s is a failure that says what to do", (_, code, says) => {
    const failure = spawnFailure(
      new SpawnError(`Could not start /bin/bash: spawn ${code}`, { cause: cause(code) }),
      shell,
    )
    expect(failure).toBeInstanceOf(ToolFailure)
    expect((failure as ToolFailure).message).toMatch(says)
  })

  it("passes any other error on as it is", () => {
    const error = new Error("other")
    expect(spawnFailure(error, shell)).toBe(error)
  })
})
