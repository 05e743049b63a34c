import { type SpawnSyncReturns, spawn, spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { findByCommandLine } from "../src/platform/shell/run/find-processes.ts"
import { BIN, runCli } from "./fixtures/cli.ts"

const root = resolve(import.meta.dirname, "..")
const bin = BIN
let project: string
let home: string

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), "toolbelt-cli-"))
  home = await mkdtemp(join(tmpdir(), "toolbelt-home-"))
  await writeFile(
    join(project, "toolbelt.json"),
    JSON.stringify({ plugin: [join(root, "test", "fixtures", "plugin.ts")] }),
  )
})

afterAll(async () => {
  await rm(project, { recursive: true, force: true })
  await rm(home, { recursive: true, force: true })
})

function toolbelt(
  args: string[],
  options: { input?: string; node?: string; cwd?: string } = {},
): SpawnSyncReturns<string> {
  // The project's config loads a plugin: its code, which runs only in a trusted project.
  return runCli(args, { ...options, cwd: options.cwd ?? project, home, env: { TOOLBELT_TRUST: "1" } })
}

const json = (result: SpawnSyncReturns<string>) => JSON.parse(result.stdout)

describe("toolbelt call", () => {
  it("prints the completed result as one JSON object and exits 0", () => {
    const result = toolbelt(["call", "echo", '{"text":"hi"}', "--json"])
    expect(result.status).toBe(0)
    expect(json(result)).toEqual({
      status: "completed",
      title: "echo",
      output: "hi",
      metadata: { truncated: false },
      attachments: [],
    })
  })

  it("keeps a v1 tool's title and metadata, and uses --session and --agent", () => {
    const result = toolbelt([
      "call",
      "titled",
      '{"name":"ada"}',
      "--json",
      "--session",
      "ses_fixed",
      "--agent",
      "plan",
    ])
    expect(result.status).toBe(0)
    expect(json(result)).toMatchObject({
      title: "hello ada",
      output: "session ses_fixed",
      metadata: { agent: "plan" },
    })
  })

  it("prints the plain output without --json", () => {
    const result = toolbelt(["call", "echo", '{"text":"plain"}'])
    expect(result.status).toBe(0)
    expect(result.stdout).toBe("plain\n")
  })

  it("reads the arguments from stdin with -", () => {
    const result = toolbelt(["call", "echo", "-", "--json"], { input: '{"text":"from stdin"}' })
    expect(result.status).toBe(0)
    expect(json(result).output).toBe("from stdin")
  })

  it("exits 1 with the validation message for invalid arguments", () => {
    const result = toolbelt(["call", "echo", '{"text":5}', "--json"])
    expect(result.status).toBe(1)
    expect(json(result)).toEqual({
      status: "error",
      error:
        "The echo tool was called with invalid arguments: text: Invalid input: expected string, received number.\nPlease rewrite the input so it satisfies the expected schema.",
    })
  })

  it("exits 1 when the tool fails", () => {
    const result = toolbelt(["call", "fail", "--json"])
    expect(result.status).toBe(1)
    expect(json(result)).toEqual({ status: "error", error: "this tool always fails" })
    const plain = toolbelt(["call", "fail"])
    expect(plain.status).toBe(1)
    expect(plain.stderr).toContain("this tool always fails")
  })

  it("exits 2 for an unknown tool and lists the available ones", () => {
    const result = toolbelt(["call", "nope", "{}", "--json"])
    expect(result.status).toBe(2)
    expect(json(result).status).toBe("error")
    expect(json(result).error).toMatch(
      /^Unknown tool "nope"\. Use one of the available tools: (.+, )?echo, .*read, .*\.$/,
    )
  })

  it("exits 2 for a tool this surface does not offer, with the reason, and runs nothing", () => {
    const batch = toolbelt([
      "call",
      "batch",
      '{"tool_calls":[{"tool":"read","parameters":{"filePath":"x"}}]}',
      "--json",
    ])
    expect(batch.status).toBe(2)
    expect(json(batch).error).toBe(
      '"batch" is not offered here: batch is off: set "batch": true in toolbelt.json, or opencode\'s "experimental": {"batch_tool": true}, to offer it',
    )
    const search = toolbelt(["call", "websearch", '{"query":"x"}', "--json"])
    expect(search.status).toBe(2)
    expect(json(search).error).toMatch(/^"websearch" is not offered here: no search provider is configured/)
  })

  it("repairs the case of a tool name", () => {
    const result = toolbelt(["call", "ECHO", '{"text":"x"}', "--json"])
    expect(result.status).toBe(0)
    expect(json(result).output).toBe("x")
  })

  it("exits 2 for arguments that are not JSON", () => {
    const result = toolbelt(["call", "echo", "{text:", "--json"])
    expect(result.status).toBe(2)
    expect(json(result).error).toMatch(/not valid JSON/)
  })

  it("exits 2 for an unknown flag and for a missing tool name", () => {
    expect(toolbelt(["call", "echo", "--nope"]).status).toBe(2)
    expect(toolbelt(["call"]).status).toBe(2)
    expect(toolbelt(["frobnicate"]).status).toBe(2)
  })

  it("rejects asks when stdin is not a TTY, and approves them with --yes", () => {
    const rejected = toolbelt(["call", "outside", "--json"])
    expect(rejected.status).toBe(1)
    expect(json(rejected)).toEqual({
      status: "error",
      error: expect.stringMatching(
        /^This call needs a person's approval and no one could be asked, so it did not run: permission external_directory for .* needs approval, and toolbelt call cannot ask \(stdin is not a terminal and --yes was not given\)\. Re-run with --yes/,
      ),
    })
    expect(json(rejected).error).not.toMatch(/user rejected/)
    // Said once: in the one JSON object, not again on stderr.
    expect(rejected.stderr).not.toContain("needs approval")
    const approved = toolbelt(["call", "outside", "--json", "--yes"])
    expect(approved.status).toBe(0)
    expect(json(approved).output).toBe("reached")
  })

  it("bounds a large output and saves all of it in the data dir", async () => {
    const result = toolbelt(["call", "lines", '{"n":3000}', "--json"])
    expect(result.status).toBe(0)
    const body = json(result)
    expect(body.metadata.truncated).toBe(true)
    expect(body.metadata.outputPath.startsWith(join(home, "data", "tool-output", "tool_"))).toBe(true)
    expect(body.output).toContain("...1000 lines truncated...")
    const full = await readFile(body.metadata.outputPath, "utf8")
    expect(full.split("\n")).toHaveLength(3000)
  })

  it("read: a large file's line index, saved in the data dir, serves the next process", async () => {
    const line = "2026-11-25T04:00:00Z INFO request served in 12ms by worker-7\n"
    const count = Math.ceil((33 * 1024 * 1024) / line.length)
    await writeFile(join(project, "big.log"), line.repeat(count))
    const indexes = join(home, "data", "line-index")
    const first = toolbelt(["call", "read", '{"filePath":"big.log","limit":1}', "--json"])
    expect(json(first).output).toContain(`(Showing lines 1-1 of ${count}. Use offset=2 to continue.)`)
    expect(await readdir(indexes)).toHaveLength(1)
    const last = toolbelt(["call", "read", JSON.stringify({ filePath: "big.log", offset: count }), "--json"])
    expect(json(last).output).toContain(`${count}: ${line.trimEnd()}\n\n(End of file - total ${count} lines)`)
    await rm(join(project, "big.log"))
  })

  it("runs from an older Node by re-running itself on the pinned one", () => {
    const result = toolbelt(["call", "echo", '{"text":"old node"}', "--json"], { node: "/usr/bin/node" })
    expect(result.status).toBe(0)
    expect(json(result).output).toBe("old node")
  })

  const oldNode = "/usr/bin/node"
  const isOld =
    existsSync(oldNode) &&
    Number(spawnSync(oldNode, ["-p", "process.versions.node.split('.')[0]"], { encoding: "utf8" }).stdout) <
      22
  it.runIf(process.platform === "linux" && isOld)(
    "re-run on the pinned Node: killing the first process with SIGKILL ends the call and its command too",
    async () => {
      const marker = join(project, "wrapper-started")
      const seconds = `317.${process.pid}`
      // As /proc/<pid>/cmdline spells the sleep itself (arguments end in NUL), not the processes that name it.
      const sleep = `sleep\0${seconds}\0`
      const wrapper = spawn(
        oldNode,
        [
          bin,
          "call",
          "bash",
          JSON.stringify({ command: `touch ${marker}; sleep ${seconds}`, description: "wait" }),
          "--yes",
        ],
        {
          cwd: project,
          stdio: "ignore",
          env: { PATH: process.env.PATH, HOME: home, TOOLBELT_DATA_DIR: join(home, "data") },
        },
      )
      try {
        await waitFor(() => existsSync(marker), 60_000)
        // The marker is touched just before bash starts the sleep: wait for the sleep itself.
        await waitFor(() => findByCommandLine(sleep).length === 1, 60_000)
        wrapper.kill("SIGKILL")
        await waitFor(
          () =>
            findByCommandLine(sleep).length === 0 && findByCommandLine(`${bin}\0call\0bash\0`).length === 0,
          30_000,
        )
      } finally {
        wrapper.kill("SIGKILL")
        for (const pid of findByCommandLine(sleep)) process.kill(pid, "SIGKILL")
        await rm(marker, { force: true })
      }
    },
    120_000,
  )
})

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

describe("toolbelt tools", () => {
  it("lists the registered tools with JSON Schemas, never `invalid`", () => {
    const result = toolbelt(["tools", "--json"])
    expect(result.status).toBe(0)
    const tools = json(result) as { name: string; inputSchema: any; source: string }[]
    const names = tools.map((t) => t.name)
    expect(names).toEqual([...names].sort())
    for (const name of ["echo", "fail", "lines", "outside", "slow", "titled", "read", "write", "list"]) {
      expect(names).toContain(name)
    }
    expect(names).not.toContain("invalid")
    const echo = tools.find((t) => t.name === "echo")!
    expect(echo.inputSchema.properties.text).toMatchObject({ type: "string", description: "what to echo" })
    expect(echo.source).toMatch(/^plugin:/)
  })

  it("prints a readable list without --json", () => {
    const result = toolbelt(["tools"])
    expect(result.status).toBe(0)
    // name, definition size in tokens, description
    expect(result.stdout).toMatch(/^echo\s+\d+\s+Echoes its text back\./m)
  })

  it("reports a plugin that fails to load and keeps going", async () => {
    const broken = await mkdtemp(join(tmpdir(), "toolbelt-broken-"))
    await writeFile(
      join(broken, "bad.ts"),
      "export default function () { throw new Error('plugin exploded') }\n",
    )
    await writeFile(join(broken, "toolbelt.json"), JSON.stringify({ plugin: ["./bad.ts"] }))
    const result = toolbelt(["tools", "--json"], { cwd: broken })
    expect(result.status).toBe(0)
    expect(result.stderr).toMatch(/bad\.ts not loaded: plugin exploded/)
    expect((json(result) as { source: string }[]).every((tool) => tool.source === "builtin")).toBe(true)
    await rm(broken, { recursive: true, force: true })
  })
})

describe("help", () => {
  it.each([[["--help"]], [["tools", "--help"]], [["call", "--help"]], [["help", "call"]]])(
    "%j prints usage",
    (args) => {
      const result = toolbelt(args)
      expect(result.status).toBe(0)
      expect(result.stdout).toMatch(/Usage: toolbelt/)
    },
  )
})
