// The loop guard and the refusals it gives, through the real command line without a terminal (as
// scripts, CI and agents run it): one `toolbelt call` process per call, one session across them.
import { appendFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { runCli } from "./fixtures/cli.ts"

let root: string
let project: string
let home: string

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "toolbelt-loop-"))
  project = join(root, "project")
  home = join(root, "home")
  await mkdir(project)
  await mkdir(home)
  await writeFile(join(project, "a.txt"), "hello\n")
})

afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

/** The user's own toolbelt.json (`~/.config/toolbelt/`), which applies in every project, trusted or not. */
async function userConfig(config: Record<string, unknown>): Promise<void> {
  await mkdir(join(home, ".config", "toolbelt"), { recursive: true })
  await writeFile(join(home, ".config", "toolbelt", "toolbelt.json"), JSON.stringify(config))
}

type Result = { status: "completed"; output: string } | { status: "error"; error: string }

function call(tool: string, input: unknown, session = "ses_loop"): Result {
  const run = runCli(
    ["call", tool, JSON.stringify(input), "--cwd", project, "--session", session, "--json"],
    {
      cwd: project,
      home,
    },
  )
  return JSON.parse(run.stdout) as Result
}

const read = () => call("read", { filePath: "a.txt" })

describe("toolbelt call: the loop guard", () => {
  it("refuses the 3rd identical read of an unchanged file in one plain sentence that says how to allow it", () => {
    expect(read().status).toBe("completed")
    expect(read().status).toBe("completed")
    const third = read()
    expect(third.status).toBe("error")
    const error = third.status === "error" ? third.error : ""
    expect(error).toBe(
      'The loop guard stopped this call: read {"filePath":"a.txt"}: it was the 3rd identical call in a row and the 2 before it got the same result, and the rule "doom_loop": "ask" (permission.doom_loop in toolbelt\'s defaults) needs a person\'s approval for that, but no one could be asked; to allow it, set "doom_loop": {"threshold": N} with N above 3, or "permission": {"doom_loop": "allow"}, in your ~/.config/toolbelt/toolbelt.json (or the project\'s toolbelt.json, once the project is trusted), or try something else.',
    )
    // One sentence, and no claim that someone said no.
    expect(error.split(/\.\s/)).toHaveLength(1)
    expect(error).not.toMatch(/user rejected/i)
  })

  it("never refuses a read of a file that changed since, even right after two identical reads", async () => {
    expect(read().status).toBe("completed")
    expect(read().status).toBe("completed")
    await appendFile(join(project, "a.txt"), "more\n")
    const changed = read()
    expect(changed.status).toBe("completed")
    expect(changed.status === "completed" && changed.output).toContain("2: more")
    for (let i = 0; i < 3; i++) {
      await appendFile(join(project, "a.txt"), `line ${i}\n`)
      expect(read().status).toBe("completed")
    }
  })

  it("follows its own advice: with doom_loop allowed in the user's toolbelt.json the same read goes on", async () => {
    await userConfig({ permission: { doom_loop: "allow" } })
    for (let i = 0; i < 4; i++) expect(read().status).toBe("completed")
  })

  it("and with a higher threshold the refusal comes later and says the new value", async () => {
    await userConfig({ doom_loop: { threshold: 4 } })
    for (let i = 0; i < 3; i++) expect(read().status).toBe("completed")
    const fourth = read()
    expect(fourth.status === "error" && fourth.error).toMatch(
      /^The loop guard stopped this call: read \{"filePath":"a.txt"\}: it was the 4th identical call in a row .* with N above 4,/,
    )
  })
})

describe("toolbelt call batch: the loop guard", () => {
  it("says the loop guard stopped the batch, not that the user rejected it, when no one could be asked", async () => {
    await userConfig({ batch: true })
    const say = { command: "echo same", description: "Say the same" }
    expect(call("bash", say).status).toBe("completed")
    expect(call("bash", say).status).toBe("completed")
    const batch = call("batch", { tool_calls: [{ tool: "bash", parameters: say }] })
    expect(batch.status).toBe("error")
    const error = batch.status === "error" ? batch.error : ""
    expect(error).toMatch(
      /^The loop guard stopped this call: bash \{"command":"echo same","description":"Say the same"\}: /,
    )
    expect(error).toContain("it was the 3rd identical call in a row")
    expect(error).toContain("no one could be asked")
    expect(error).toContain('"permission": {"doom_loop": "allow"}')
    expect(error).not.toMatch(/user rejected/i)
  })
})

describe("toolbelt call: what a refusal says", () => {
  it("a deny names the deciding rule, its key and the file it was written in", async () => {
    const config = join(project, "toolbelt.json")
    await writeFile(config, JSON.stringify({ permission: { bash: { "*": "allow", "rm *": "deny" } } }))
    const result = call("bash", { command: "rm -rf build", description: "Remove build" })
    expect(result.status).toBe("error")
    const error = result.status === "error" ? result.error : ""
    expect(error).toMatch(
      /^The user has specified a rule which prevents you from using this specific tool call: /,
    )
    expect(error).toContain(`the rule bash "rm *": "deny" (permission.bash["rm *"] in ${config}) denies bash`)
    expect(error).not.toContain('[{"permission"')
  })

  it("an ask no one can answer puts the real reason in the JSON result, not a user's rejection", () => {
    const result = call("read", { filePath: "/etc/passwd" })
    expect(result.status).toBe("error")
    const error = result.status === "error" ? result.error : ""
    expect(error).toContain("no one could be asked")
    expect(error).toContain("stdin is not a terminal and --yes was not given")
    expect(error).not.toMatch(/user rejected/i)
  })
})
