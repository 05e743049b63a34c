// Bad input, for every tool, derived from each tool's own JSON Schema (no tool is named in a case):
// each required field missing, each field given each JSON type it does not take, an unknown extra
// field, a 5 MB string in each string field, null, an array instead of the object, and nesting just
// under and far over the depth bound. Each must settle as an error a model can act on (it names the
// field or says what is wrong, with no stack and no dump of the input), write nothing in the project,
// and finish. The full matrix runs in-process through the library (`toolbelt.call`), for every
// registered tool, offered or not; a representative case of each kind runs through the command line
// (`toolbelt call <tool> - --json`) for every tool `toolbelt tools --json` lists in a project that
// turns the optional tools on, and over MCP (stdio) for every tool the server lists.
import { createHash } from "node:crypto"
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { FAKE_SERVER } from "../src/adapters/lsp/fixtures/lsp-project.ts"
import { internals } from "../src/compose/internals.ts"
import { createToolbelt, type Toolbelt } from "../src/compose/toolbelt.ts"
import { inputJsonSchema } from "../src/runtime/tool/internal.ts"
import { type BadInput, badInputs, type JsonSchema } from "./fixtures/bad-inputs.ts"
import { cliEnv, runCliAsync } from "./fixtures/cli.ts"
import { connectStdio } from "./mcp/helpers.ts"

/** A regression that hangs is killed after this and fails its case; it is not a time limit on anything. */
const HANG_GUARD_MS = 120_000
/**
 * How long one whole matrix may run (hundreds of calls; ~15 s on an idle 2-core machine): a hang guard
 * for a loaded machine, not a time limit on anything.
 */
const WHOLE_MATRIX_MS = 300_000
/** Command lines run at once (the machine has 2 cores). */
const CLI_PARALLEL = 4
/** Library calls run at once. */
const LIBRARY_PARALLEL = 16

let project: string
let home: string
let cliTools: { name: string; inputSchema: JsonSchema }[]

/** A loopback port nothing listens on: the search providers' calls fail at once, without the network. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/** The project's config runs things (a language server, search providers): trusted for the probe. */
const TRUSTED = { TOOLBELT_TRUST: "1" }

beforeAll(async () => {
  project = realpathSync(mkdtempSync(join(tmpdir(), "toolbelt-bad-input-")))
  home = realpathSync(mkdtempSync(join(tmpdir(), "toolbelt-bad-input-home-")))
  const closed = `http://127.0.0.1:${await closedPort()}`
  writeFileSync(
    join(project, "toolbelt.json"),
    JSON.stringify({
      batch: true,
      websearch: { provider: "searxng", url: `${closed}/search` },
      codesearch: { provider: "exa", url: `${closed}/mcp` },
      lsp: { fake: { command: [process.execPath, FAKE_SERVER], extensions: [".fake"] } },
    }),
  )
  mkdirSync(join(project, ".toolbelt", "skills", "demo"), { recursive: true })
  writeFileSync(
    join(project, ".toolbelt", "skills", "demo", "SKILL.md"),
    "---\nname: demo\ndescription: A skill for the probe.\n---\nDo the demo.\n",
  )
  writeFileSync(join(project, "a.txt"), "hello\n")
  writeFileSync(join(project, "b.fake"), "let x = 1\n")
  const listed = await runCli(["tools", "--json"], "")
  expect(listed.status, listed.stderr).toBe(0)
  cliTools = JSON.parse(listed.stdout)
})

afterAll(() => {
  rmSync(project, { recursive: true, force: true })
  rmSync(home, { recursive: true, force: true })
})

/** Every file and folder under the project, with a hash of each file's bytes. */
function snapshot(): Record<string, string> {
  const out: Record<string, string> = {}
  for (const entry of readdirSync(project, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name)
    const key = relative(project, path)
    if (entry.isFile()) out[key] = createHash("sha1").update(readFileSync(path)).digest("hex")
    else out[key] = entry.isDirectory() ? "dir" : entry.isSymbolicLink() ? "link" : "other"
  }
  return out
}

/** The processes (other than this one) working in `dir`: what a call started and left running. */
function processesIn(dir: string): string[] {
  if (!existsSync("/proc/self/cwd")) return []
  const out: string[] = []
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    if (Number(pid) === process.pid) continue
    try {
      const cwd = readlinkSync(`/proc/${pid}/cwd`)
      if (cwd === dir || cwd.startsWith(`${dir}/`))
        out.push(
          `${pid}: ${readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").slice(0, 200)}`,
        )
    } catch {
      // Gone meanwhile, or not ours to look at.
    }
  }
  return out
}

/** `toolbelt <args>` in the project with `input` on stdin, to its end (killed only by the hang guard). */
function runCli(
  args: string[],
  input: string,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return runCliAsync(args, { cwd: project, home, input, timeout: HANG_GUARD_MS, env: TRUSTED })
}

/** Runs `work` over `items`, at most `parallel` at a time, keeping the order of the results. */
async function inBatches<T, R>(
  items: readonly T[],
  parallel: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const index = next++
      results[index] = await work(items[index]!)
    }
  }
  await Promise.all(Array.from({ length: Math.min(parallel, items.length) }, worker))
  return results
}

/** What is wrong with an error message for this case, or nothing. */
function faultsOf(error: unknown, bad: BadInput): string[] {
  if (typeof error !== "string") return [`the error is ${JSON.stringify(error)}, not a string`]
  const faults: string[] = []
  if (error.length > 4096) faults.push(`the error is ${error.length} characters long`)
  if (/^\s+at /m.test(error)) faults.push("the error holds a stack trace")
  if (error.includes("[object Object]")) faults.push("the error says [object Object]")
  if (["", "undefined", "null"].includes(error.trim())) faults.push(`the error is ${JSON.stringify(error)}`)
  for (const says of bad.says)
    if (!says.test(error)) faults.push(`the error does not match ${says}: ${error.slice(0, 600)}`)
  return faults
}

describe("through the library, the full matrix for every registered tool", () => {
  let toolbelt: Toolbelt
  let tools: { name: string; inputSchema: JsonSchema }[]

  beforeAll(async () => {
    toolbelt = await createToolbelt({
      directory: project,
      dataDir: join(home, "library-data"),
      env: cliEnv(home, TRUSTED),
      // Whatever a case gets as far as asking is refused, as a command line without --yes would.
      decide: async () => "reject",
      answer: async () => "dismiss",
      editDiagnostics: false,
    })
    tools = await Promise.all(
      internals(toolbelt)
        .registry.ids()
        .map(async (name) => {
          const tool = await internals(toolbelt).registry.instantiate(
            internals(toolbelt).registry.resolve(name)!,
            "build",
          )
          return { name, inputSchema: inputJsonSchema(tool) }
        }),
    )
  })

  afterAll(async () => {
    await toolbelt?.close()
  })

  it("derives cases of every kind from every tool's schema, and the field faults from each field", () => {
    const fieldless = badInputs({ type: "object", properties: {} }).map((bad) => bad.kind)
    expect(new Set(fieldless)).toEqual(new Set(["unknown field", "null", "array", "deep"]))
    const write = badInputs({
      type: "object",
      properties: { filePath: { type: "string" }, tags: { type: "array", items: { type: "string" } } },
      required: ["filePath"],
    })
    expect(write.map((bad) => bad.name)).toEqual([
      "missing filePath",
      "number for filePath",
      "boolean for filePath",
      "null for filePath",
      "object for filePath",
      "array for filePath",
      "string for tags",
      "number for tags",
      "boolean for tags",
      "null for tags",
      "object for tags",
      "number for tags[0]",
      "boolean for tags[0]",
      "null for tags[0]",
      "object for tags[0]",
      "array for tags[0]",
      "unexpected_field",
      "5 MB in filePath",
      "5 MB in tags[0]",
      "null",
      "array",
      "nested 1024 deep",
      "nested 500 deep in filePath",
    ])
    for (const tool of tools) expect(badInputs(tool.inputSchema).length).toBeGreaterThanOrEqual(4)
  })

  it("covers every tool the command line lists, and those it does not offer", () => {
    const names = tools.map((tool) => tool.name)
    expect(names).toEqual(expect.arrayContaining(cliTools.map((tool) => tool.name)))
    expect(names).toEqual(expect.arrayContaining(["task", "plan_exit", "invalid"]))
  })

  it(
    "settles every case as an actionable error and writes nothing in the project",
    async () => {
      const cases = tools.flatMap((tool) =>
        badInputs(tool.inputSchema).map((bad) => ({ tool: tool.name, bad })),
      )
      const before = snapshot()
      const faults = await inBatches(cases, LIBRARY_PARALLEL, async ({ tool, bad }) => {
        const result = await toolbelt.call({ tool, input: bad.input })
        const where = `${tool} (${bad.name})`
        if (result.status !== "error") return [`${where}: completed: ${result.output.slice(0, 300)}`]
        const faults = faultsOf(result.error, bad)
        // A defect is a throw the runtime did not understand: bad input must be told apart from a bug.
        if (result.kind === "defect")
          faults.push(`a defect, not an error about the input: ${result.error.slice(0, 300)}`)
        return faults.map((fault) => `${where}: ${fault}`)
      })
      expect(faults.flat()).toEqual([])
      expect(snapshot()).toEqual(before)
      expect(processesIn(project)).toEqual([])
    },
    WHOLE_MATRIX_MS,
  )
})

describe("through the command line, one case of each kind for every listed tool", () => {
  it(
    "exits 1 with one {status: error, error} object, and writes nothing in the project",
    async () => {
      const cases = cliTools.flatMap((tool) =>
        representative(badInputs(tool.inputSchema)).map((bad) => ({ tool: tool.name, bad })),
      )
      const before = snapshot()
      const faults = await inBatches(cases, CLI_PARALLEL, async ({ tool, bad }) => {
        const where = `${tool} (${bad.name})`
        const result = await runCli(["call", tool, "-", "--json"], JSON.stringify(bad.input))
        const lines = result.stdout.split("\n").filter(Boolean)
        if (result.status === null) return [`${where}: did not finish`]
        if (lines.length !== 1)
          return [`${where}: printed ${lines.length} lines: ${result.stdout.slice(0, 300)}`]
        const printed = JSON.parse(lines[0]!)
        const faults = faultsOf(printed.error, bad)
        if (result.status !== 1) faults.push(`exit ${result.status}, not 1`)
        if (printed.status !== "error") faults.push(`status ${printed.status}`)
        if (/^\s+at /m.test(result.stderr))
          faults.push(`a stack trace on stderr: ${result.stderr.slice(0, 300)}`)
        if (/\bdefect in\b/.test(result.stderr)) faults.push(`a defect: ${result.stderr.slice(0, 300)}`)
        return faults.map((fault) => `${where}: ${fault}`)
      })
      expect(faults.flat()).toEqual([])
      expect(snapshot()).toEqual(before)
      expect(processesIn(project)).toEqual([])
    },
    WHOLE_MATRIX_MS,
  )
})

describe("over MCP (stdio), one case of each kind for every tool the server lists", () => {
  it(
    "answers each with an error result, and writes nothing in the project",
    async () => {
      const server = await connectStdio(
        { dir: project, env: cliEnv(home, TRUSTED) as Record<string, string>, remove: async () => {} },
        {},
      )
      try {
        const { tools } = await server.client.listTools()
        // All the command line lists but question, which needs a client that shows forms.
        const listed = cliTools.map((tool) => tool.name).filter((name) => name !== "question")
        expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(listed))
        // A call's arguments are an object by the protocol: null or a list is the client's to refuse.
        const cases = tools.flatMap((tool) =>
          representative(badInputs(tool.inputSchema as JsonSchema))
            .filter((bad) => bad.kind !== "null" && bad.kind !== "array")
            .map((bad) => ({ tool: tool.name, bad })),
        )
        const before = snapshot()
        const faults = await inBatches(cases, LIBRARY_PARALLEL, async ({ tool, bad }) => {
          const where = `${tool} (${bad.name})`
          const result = (await server.client.callTool(
            { name: tool, arguments: bad.input as Record<string, unknown> },
            { timeout: HANG_GUARD_MS },
          )) as { isError?: boolean; content: { type: string; text?: string }[] }
          const faults = faultsOf(result.content[0]?.text, bad)
          if (result.isError !== true) faults.push("not an error result")
          return faults.map((fault) => `${where}: ${fault}`)
        })
        expect(faults.flat()).toEqual([])
        expect(snapshot()).toEqual(before)
        expect(server.stderr()).not.toMatch(/\bdefect in\b|^\s+at /m)
      } finally {
        await server.close()
      }
    },
    WHOLE_MATRIX_MS,
  )
})

/** The first case of each kind: what runs through the command line. */
function representative(cases: readonly BadInput[]): BadInput[] {
  const seen = new Set<string>()
  return cases.filter((bad) => !seen.has(bad.kind) && seen.add(bad.kind))
}
