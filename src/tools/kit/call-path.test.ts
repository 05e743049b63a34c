import { mkdir, mkdtemp, realpath, rm, symlink } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PermissionRejectedError } from "../../runtime/permission/errors.ts"
import type { AskInput, Context } from "../../runtime/tool/context.ts"
import { callPath, pathToWrite } from "./call-path.ts"

let worktree: string
let project: string
let outside: string

beforeAll(async () => {
  worktree = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-call-path-")))
  project = join(worktree, "packages", "app")
  outside = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-call-path-outside-")))
  await mkdir(join(project, "src"), { recursive: true })
  // Inside the project by its name, outside by where a write to it lands.
  await symlink(outside, join(project, "linked"))
})

afterAll(async () => {
  await rm(worktree, { recursive: true, force: true })
  await rm(outside, { recursive: true, force: true })
})

/** What a call carries besides its directories and its asks, which are all the path looks at. */
const UNUSED = {
  sessionID: "ses_call_path",
  messageID: "msg_1",
  agent: "build",
  callID: "call_1",
  abort: new AbortController().signal,
  messages: [],
  metadata: () => {},
} satisfies Omit<Context, "extra" | "ask">

/** A call in `project` (inside `worktree`) whose permission asks are kept, and refused when `refuse`. */
function call(asks: AskInput[], refuse = false): Context {
  const ask = async (input: AskInput) => {
    asks.push(input)
    if (refuse) throw new PermissionRejectedError()
  }
  return { ...UNUSED, extra: { directory: project, worktree }, ask }
}

describe("callPath", () => {
  it("resolves against the project and titles relative to the worktree", () => {
    const ctx = call([])
    expect(callPath(ctx, "src/a.ts")).toEqual({
      filepath: join(project, "src", "a.ts"),
      title: "packages/app/src/a.ts",
    })
    expect(callPath(ctx, join(project, "src", "..", "b.ts"))).toEqual({
      filepath: join(project, "b.ts"),
      title: "packages/app/b.ts",
    })
    expect(callPath(ctx, join(outside, "x.txt")).filepath).toBe(join(outside, "x.txt"))
  })

  it("without a worktree, titles relative to the project", () => {
    expect(callPath({ extra: { directory: project } }, "src/a.ts").title).toBe("src/a.ts")
    expect(callPath({ extra: { directory: project } }, project).title).toBe(".")
  })
})

describe("pathToWrite", () => {
  it("inside the project: asks nothing, and resolved is where the write lands", async () => {
    const asks: AskInput[] = []
    expect(await pathToWrite(call(asks), "src/new.ts")).toEqual({
      filepath: join(project, "src", "new.ts"),
      title: "packages/app/src/new.ts",
      resolved: join(project, "src", "new.ts"),
    })
    expect(asks).toEqual([])
  })

  it("a symlink that leads outside: asks external_directory for the real parent, resolved follows the link", async () => {
    const asks: AskInput[] = []
    const target = await pathToWrite(call(asks), "linked/out.txt")
    expect(target).toEqual({
      filepath: join(project, "linked", "out.txt"),
      title: "packages/app/linked/out.txt",
      resolved: join(outside, "out.txt"),
    })
    expect(asks.map((ask) => [ask.permission, ask.patterns])).toEqual([
      ["external_directory", [join(outside, "*")]],
    ])
  })

  it("a refused ask outside the project rejects, so the tool never writes", async () => {
    const asks: AskInput[] = []
    await expect(pathToWrite(call(asks, true), join(outside, "x.txt"))).rejects.toBeInstanceOf(
      PermissionRejectedError,
    )
    expect(asks).toHaveLength(1)
  })
})
