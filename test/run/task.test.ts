// task through `toolbelt run` against the scripted loopback model server: the parent's and the
// subagent's model calls come to the same server, one after the other (the script is in that order).
import { mkdir, readFile, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { findByCommandLine } from "../../src/platform/shell/run/find-processes.ts"
import { BIN, cliEnv, runCliAsync, startCli } from "../fixtures/cli.ts"
import { hasPty, onTerminal } from "../fixtures/pty.ts"
import type { Reply } from "./openai-server.ts"
import { scriptedRuns } from "./scripted-runs.ts"

const runs = scriptedRuns("task-run")
const { serve, model } = runs
const run = (args: string[]) => runCliAsync(["run", ...args], { cwd: runs.project(), home: runs.home() })
const offered = (request: any): string[] => (request.tools ?? []).map((tool: any) => tool.function.name)
const system = (request: any): string =>
  request.messages.find((message: any) => message.role === "system")?.content ?? ""
const task = (input: Record<string, unknown>, id?: string): Reply => ({
  toolCalls: [
    {
      ...(id ? { id } : {}),
      name: "task",
      arguments: {
        description: "fix the file",
        prompt: "Change foo to bar in a.txt",
        subagent_type: "general",
        ...input,
      },
    },
  ],
})
/** The child session id in the task result the parent's model got. */
const taskID = (request: any): string => {
  const results = request.messages.filter((message: any) => message.role === "tool")
  return /<task id="(ses_\w+)"/.exec(results.map((message: any) => message.content).join("\n"))?.[1] ?? ""
}

describe("toolbelt run with task", () => {
  it("a subagent reads and edits through its own session; its calls show under the task call", async () => {
    await writeFile(join(runs.project(), "a.txt"), "foo\n")
    const { baseURL, requests } = await serve([
      task({}),
      { toolCalls: [{ name: "read", arguments: { filePath: "a.txt" } }] },
      { toolCalls: [{ name: "edit", arguments: { filePath: "a.txt", oldString: "foo", newString: "bar" } }] },
      { text: "Changed foo to bar." },
      { text: "The subagent changed a.txt." },
    ])
    const result = await run(["fix a.txt", "--session", "ses_parent", ...model(baseURL)])

    expect(result.status).toBe(0)
    expect(result.stdout).toBe("The subagent changed a.txt.\n")
    expect(await readFile(join(runs.project(), "a.txt"), "utf8")).toBe("bar\n")
    expect(result.stderr).toContain("→ task fix the file")
    expect(result.stderr).toContain("  ↳ fix the file (@general subagent)\n    → read a.txt")
    expect(result.stderr).toContain("    ✓ edit")
    expect(result.stderr).toContain("✓ task fix the file")

    expect(requests).toHaveLength(5)
    expect(offered(requests[0])).toContain("task")
    expect(system(requests[1])).toContain("You are a subagent")
    expect(offered(requests[1])).not.toContain("task")
    expect(requests[1].messages.at(-1)).toEqual({ role: "user", content: "Change foo to bar in a.txt" })
    const answer = requests[4].messages.find((message: any) => message.role === "tool")
    expect(answer.content).toMatch(
      /^<task id="ses_\w+" state="completed">\n<task_result>\nChanged foo to bar.\n<\/task_result>\n<\/task>$/,
    )

    // A second run resumes the child by task_id: it gets its own history back.
    const child = taskID(requests[4])
    expect(child).toMatch(/^ses_/)
    const second = await serve([
      // The first server's call ids are in the session already: this call needs another.
      task({ description: "check again", prompt: "What did you change?", task_id: child }, "call_again"),
      { text: "I changed foo to bar in a.txt." },
      { text: "It confirmed." },
    ])
    const again = await run(["did it work?", "--session", "ses_parent", ...model(second.baseURL)])
    expect(again.status).toBe(0)
    const history = JSON.stringify(second.requests[1].messages)
    expect(history).toContain("Change foo to bar in a.txt")
    expect(history).toContain("Changed foo to bar.")
    expect(history).toContain("What did you change?")
    expect(taskID(second.requests[2])).toBe(child)
  })

  it("without a terminal, a subagent's ask is rejected saying which subagent asked, and the run stops", async () => {
    await writeFile(join(runs.project(), ".env"), "TOKEN=1\n")
    const { baseURL, requests } = await serve([
      task({ description: "read the env", prompt: "What is in .env?" }),
      { toolCalls: [{ name: "read", arguments: { filePath: ".env" } }] },
      { text: "should not be asked" },
    ])
    const result = await run(["check the env", ...model(baseURL)])
    expect(result.status).toBe(1)
    expect(result.stderr).toContain(
      "✗ read: This call needs a person's approval and no one could be asked, so it did not run: permission read for .env, asked by the general subagent (task: read the env), needs approval, and toolbelt run cannot ask (stdin is not a terminal",
    )
    expect(result.stderr).toContain("the general subagent (read the env) was stopped")
    expect(requests).toHaveLength(2)
  })

  it.skipIf(!hasPty)("at a terminal, the person answers a subagent's ask at the same prompt", async () => {
    await writeFile(join(runs.project(), ".env"), "TOKEN=1\n")
    const { baseURL, requests } = await serve([
      task({ description: "read the env", prompt: "What is in .env?" }),
      { toolCalls: [{ name: "read", arguments: { filePath: ".env" } }] },
      { text: "TOKEN is 1." },
      { text: "The token is set." },
    ])
    const terminal = onTerminal(process.execPath, [BIN, "run", "check the env", ...model(baseURL)], {
      cwd: runs.project(),
      env: cliEnv(runs.home()),
    })
    await terminal.waitFor("Allow? ")
    expect(terminal.screen().replaceAll("\r", "")).toContain(
      "Permission requested: read for .env\n  asked by: the general subagent (task: read the env)",
    )
    terminal.type("o")
    expect(await terminal.exited).toBe(0)
    expect(terminal.screen()).toContain("The token is set.")
    expect(JSON.stringify(requests[2].messages)).toContain("TOKEN=1")
  })

  it("an interrupt (SIGINT, Ctrl-C) mid-subagent stops the run and leaves none of the subagent's processes", async () => {
    const { baseURL } = await serve([
      task({ description: "run the long job", prompt: "Run it." }),
      { toolCalls: [{ name: "bash", arguments: { command: "sleep 61247", run_in_background: true } }] },
      { toolCalls: [{ name: "bash", arguments: { command: "sleep 61245 & echo started; sleep 61246" } }] },
      { text: "never" },
    ])
    const started = startCli(["run", "go", ...model(baseURL)], { cwd: runs.project(), home: runs.home() })
    const sleeps = ["61245", "61246", "61247"]
    try {
      for (let i = 0; i < 3000 && !started.stderr().includes("│ started"); i++)
        await new Promise((resolve) => setTimeout(resolve, 10))
      expect(findByCommandLine("sleep\u000061247")).toHaveLength(1)
      started.child.kill("SIGINT")
      const result = await started.done
      expect(result.status).toBe(130)
      expect(result.stderr).toContain("    ⊘ bash: Tool execution aborted\n⊘ task: Tool execution aborted")
      expect(result.stderr).toContain("toolbelt run: interrupted")
      for (const seconds of sleeps) expect(findByCommandLine(`sleep\u0000${seconds}`)).toEqual([])
    } finally {
      started.child.kill("SIGKILL")
      for (const seconds of sleeps)
        for (const pid of findByCommandLine(`sleep\u0000${seconds}`)) process.kill(pid, "SIGKILL")
    }
  })

  it("an agent file's subagent runs with its prompt, rules and model; a broken agent file is a warning", async () => {
    await mkdir(join(runs.project(), ".opencode", "agent"), { recursive: true })
    await writeFile(
      join(runs.project(), ".opencode", "agent", "docs.md"),
      "---\ndescription: Edits documentation only\nmode: subagent\nmodel: openai-compatible/docs-model\npermission:\n  edit: deny\n---\nYou edit documentation only.\n",
    )
    await writeFile(join(runs.project(), ".opencode", "agent", "broken.md"), "---\nmode: sometimes\n---\nx\n")
    await writeFile(join(runs.project(), "a.txt"), "foo\n")
    const { baseURL, requests } = await serve([
      task({ subagent_type: "docs", description: "try an edit" }),
      { toolCalls: [{ name: "read", arguments: { filePath: "a.txt" } }] },
      { toolCalls: [{ name: "edit", arguments: { filePath: "a.txt", oldString: "foo", newString: "bar" } }] },
      { text: "I may not edit a.txt." },
      { text: "It could not." },
    ])
    // The agent's own model: the provider's server from the environment (here the same script).
    const result = await runCliAsync(["run", "try", ...model(baseURL)], {
      cwd: runs.project(),
      home: runs.home(),
      env: { TOOLBELT_BASE_URL: baseURL },
    })
    expect(result.status).toBe(0)
    expect(requests.map((request: any) => request.model)).toEqual([
      "test-model",
      "docs-model",
      "docs-model",
      "docs-model",
      "test-model",
    ])
    expect(result.stderr).toContain(
      `warning: agent file ${join(runs.project(), ".opencode", "agent", "broken.md")} not loaded: Invalid mode of the frontmatter`,
    )
    const description = requests[0].tools.find((tool: any) => tool.function.name === "task").function
      .description
    expect(description).toContain("- docs: Edits documentation only")
    expect(system(requests[1])).toContain("You edit documentation only.")
    // edit is denied outright for the docs agent: not even offered.
    expect(offered(requests[1])).not.toContain("edit")
    expect(await readFile(join(runs.project(), "a.txt"), "utf8")).toBe("foo\n")
  })
})
