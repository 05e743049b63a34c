import { readFile, writeFile } from "node:fs/promises"
import { join, resolve } from "node:path"
import { Readable } from "node:stream"
import { beforeEach, describe, expect, it } from "vitest"
import { main } from "../../src/surfaces/cli/main.ts"
import { builtins } from "../../src/tools/index.ts"
import { runCliAsync } from "../fixtures/cli.ts"
import { scriptedRuns } from "./scripted-runs.ts"

const root = resolve(import.meta.dirname, "..", "..")
const plugin = join(root, "test", "fixtures", "plugin.ts")
const runs = scriptedRuns("run")
const serve = runs.serve

beforeEach(async () => {
  await writeFile(join(runs.project(), "toolbelt.json"), JSON.stringify({ plugin: [plugin] }))
})

/** Runs the real CLI as a subprocess (asynchronously: the scripted server lives in this process). */
function toolbelt(args: string[], env: Record<string, string> = {}) {
  return runCliAsync(args, {
    cwd: runs.project(),
    home: runs.home(),
    input: "",
    // The project's config loads a plugin: its code, which runs only in a trusted project.
    env: { TOOLBELT_TRUST: "1", ...env },
    timeout: 30_000,
  })
}

const model = ["--model", "openai-compatible/test-model"]

describe("toolbelt run against an OpenAI-compatible server", () => {
  it("runs the model's tool call, which changes a file, then prints the final text", async () => {
    // Prefer a built-in that changes files; fall back to the plugin's echo while there is none.
    const fileTool = "write" in builtins() ? "write" : undefined
    const call = fileTool
      ? { name: "write", arguments: { filePath: "hello.txt", content: "hello from the model\n" } }
      : { name: "echo", arguments: { text: "hello" } }
    const { baseURL, requests } = await serve([{ toolCalls: [call] }, { text: "Created hello.txt for you." }])

    const result = await toolbelt(["run", "create hello.txt", ...model, "--base-url", baseURL])

    expect(result.stderr).toContain(`→ ${call.name}`)
    expect(result.stderr).toContain(`✓ ${call.name}`)
    expect(result.status).toBe(0)
    expect(result.stdout).toBe("Created hello.txt for you.\n")
    if (fileTool) {
      expect(await readFile(join(runs.project(), "hello.txt"), "utf8")).toBe("hello from the model\n")
      expect(result.stderr).toContain("+hello from the model")
    }

    // What the provider saw: the tools sorted by name, never `invalid`; then the tool's result.
    expect(requests).toHaveLength(2)
    const offered = requests[0].tools.map((tool: any) => tool.function.name)
    expect(offered).toEqual([...offered].sort())
    expect(offered).toContain(call.name)
    expect(offered).not.toContain("invalid")
    expect(requests[0].messages.at(-1)).toEqual({ role: "user", content: "create hello.txt" })
    const toolMessage = requests[1].messages.find((message: any) => message.role === "tool")
    expect(toolMessage.tool_call_id).toBe("call_1_0")
    expect(toolMessage.content).toBeTypeOf("string")
  })

  it("repairs a wrong-case tool name and reports an unknown tool back to the model", async () => {
    const { baseURL, requests } = await serve([
      {
        toolCalls: [
          { name: "ECHO", arguments: { text: "loud" } },
          { name: "teleport", arguments: { to: "mars" } },
        ],
      },
      { text: "Done." },
    ])
    const result = await toolbelt(["run", "echo loud", ...model, "--base-url", baseURL])
    expect(result.status).toBe(0)
    expect(result.stderr).toContain("✓ echo")
    const results = requests[1].messages.filter((message: any) => message.role === "tool")
    expect(results.map((message: any) => message.content)).toEqual([
      "loud",
      expect.stringContaining("Model tried to call unavailable tool 'teleport'"),
    ])
  })

  it("stops with exit 1 when a permission ask is rejected (no TTY, no --yes)", async () => {
    const { baseURL, requests } = await serve([
      { toolCalls: [{ name: "outside", arguments: {} }] },
      { text: "should not be asked" },
    ])
    const result = await toolbelt(["run", "go outside", ...model, "--base-url", baseURL])
    expect(result.status).toBe(1)
    expect(result.stderr).toContain(
      "✗ outside: This call needs a person's approval and no one could be asked",
    )
    expect(result.stderr).toContain("cannot ask (stdin is not a terminal and --yes was not given)")
    // Said once, on the call's line: the line that ends the run points at it.
    expect(result.stderr.split("needs approval").length).toBe(2)
    expect(result.stderr).toContain("toolbelt run: stopped at the call above")
    expect(result.stdout).toBe("")
    expect(requests).toHaveLength(1)
  })

  it("with --yes the ask is approved and the turn goes on", async () => {
    const { baseURL, requests } = await serve([
      { toolCalls: [{ name: "outside", arguments: {} }] },
      { text: "Reached it." },
    ])
    const result = await toolbelt(["run", "go outside", ...model, "--base-url", baseURL, "--yes"])
    expect(result.status).toBe(0)
    expect(result.stdout).toBe("Reached it.\n")
    const toolMessage = requests[1].messages.find((message: any) => message.role === "tool")
    expect(toolMessage.content).toBe("reached")
  })

  it("honours the step limit: the last step gets no tools and is told why", async () => {
    const { baseURL, requests } = await serve([
      { toolCalls: [{ name: "lines", arguments: { n: 3 } }] },
      { text: "Out of steps." },
    ])
    const result = await toolbelt(["run", "count", ...model, "--base-url", baseURL, "--steps", "2"])
    expect(result.status).toBe(0)
    expect(result.stdout).toBe("Out of steps.\n")
    expect(result.stderr).toContain("used all its steps")
    expect(requests).toHaveLength(2)
    expect(requests[0].tools.length).toBeGreaterThan(0)
    expect(requests[1].tools).toBeUndefined()
    expect(JSON.stringify(requests[1].messages.at(-1))).toContain("maximum number of steps")
  })

  it("exits 1 when the model fails", async () => {
    const { baseURL } = await serve([{ status: 400, body: '{"error":{"message":"model not loaded"}}' }])
    const result = await toolbelt(["run", "hi", ...model, "--base-url", baseURL])
    expect(result.status).toBe(1)
    expect(result.stderr).toContain("model not loaded")
  })

  it("takes the base URL and model from the environment", async () => {
    const { baseURL } = await serve([{ text: "hello" }])
    const result = await toolbelt(["run", "hi"], {
      TOOLBELT_BASE_URL: baseURL,
      TOOLBELT_MODEL: "openai-compatible/test-model",
    })
    expect(result.status).toBe(0)
    expect(result.stdout).toBe("hello\n")
  })
})

describe("toolbelt run usage", () => {
  // In-process (the same entry the binary calls): these never reach a model.
  const run = async (args: string[], env: Record<string, string> = {}) => {
    let stdout = ""
    let stderr = ""
    const sink = (write: (text: string) => void) =>
      ({
        write: (chunk: string) => {
          write(chunk)
          return true
        },
      }) as unknown as NodeJS.WritableStream
    const io = {
      stdout: sink((text) => {
        stdout += text
      }),
      stderr: sink((text) => {
        stderr += text
      }),
      stdin: Readable.from([]) as NodeJS.ReadableStream & { isTTY?: boolean },
      env: { PATH: process.env.PATH, HOME: runs.home(), ...env },
      cwd: runs.project(),
    }
    const status = await main(args, io)
    return { status, stdout, stderr }
  }

  it.each([
    [["run", "hi"], "no model"],
    [["run", "hi", "--model", "nope"], "provider/model-id"],
    [["run", "hi", "--model", "mystery/x"], 'Unknown provider "mystery"'],
    [["run", "hi", "--model", "openai-compatible/x"], "--base-url"],
    [["run", "hi", "--model", "openai/gpt-x"], "OPENAI_API_KEY"],
    [["run", "hi", "--model", "anthropic/claude-x"], "ANTHROPIC_API_KEY"],
    [["run", "--model", "openai-compatible/x"], "missing the prompt"],
    [["run", "hi", "--steps", "0", "--model", "openai-compatible/x"], "--steps"],
    [["run", "hi", "--bogus"], "Unknown option"],
  ])("%j exits 2", async (args, message) => {
    const result = await run(args)
    expect(result.status).toBe(2)
    expect(result.stderr).toContain(message)
  })

  it("an unknown agent is a usage error", async () => {
    const result = await run(["run", "hi", "--agent", "nobody"], {
      TOOLBELT_MODEL: "openai-compatible/x",
      TOOLBELT_BASE_URL: "http://127.0.0.1:9/v1",
      TOOLBELT_DATA_DIR: join(runs.home(), "data"),
    })
    expect(result.status).toBe(2)
    expect(result.stderr).toContain('Unknown agent "nobody"')
  })

  it("--help shows the options, and the command is listed", async () => {
    const result = await run(["run", "--help"])
    expect(result.status).toBe(0)
    expect(result.stdout).toContain("--base-url URL")
    const top = await run(["--help"])
    expect(top.stdout).toMatch(/^ {2}run /m)
  })
})
