import type { Command } from "./command-line.ts"
import { EXIT, Interrupted, type IO, processIO, type UsageError, writeJson, wroteJson } from "./io.ts"

const HELP = `toolbelt: the tool runtime of a coding agent

Usage: toolbelt <command> [options]

Commands:
  tools     list the registered tools and their JSON Schemas
  call      run one tool call through the full pipeline
  mcp       serve the tools to MCP clients (stdio, or --http PORT)
  permissions  the permission policy and where each rule came from; list or revoke saved approvals
  run       an agent turn: a model (AI SDK provider or local server) calling the tools
  serve     a web page that shows every call live and answers permission asks, its HTTP API, and MCP
  skills    list the Agent Skills the skill tool offers, and where each was found
  trust     trust a project (what it would run is shown first), list trusted projects, or revoke one

Run "toolbelt <command> --help" for a command's options.
`

// Loaded on demand: `toolbelt --help` or `toolbelt call` does not pay for the AI SDK or the MCP SDK.
const COMMANDS: Record<string, () => Promise<{ command: Command }>> = {
  tools: () => import("./commands/tools.ts"),
  call: () => import("./commands/call.ts"),
  mcp: () => import("./commands/mcp.ts"),
  permissions: () => import("./commands/permissions.ts"),
  run: () => import("./commands/run.ts"),
  serve: () => import("./commands/serve.ts"),
  skills: () => import("./commands/skills.ts"),
  trust: () => import("./commands/trust.ts"),
}

/** Runs one command line; returns the exit code. */
export async function main(argv: string[], io: IO = processIO()): Promise<number> {
  const [command, ...rest] = argv
  if (!command || command === "--help" || command === "-h" || command === "help") {
    const topic = command === "help" ? rest[0] : undefined
    const load = topic ? COMMANDS[topic] : undefined
    io.stdout.write(load ? (await load()).command.help : HELP)
    return EXIT.ok
  }
  if (command === "--version" || command === "-v") {
    io.stdout.write(`${await version()}\n`)
    return EXIT.ok
  }
  const load = COMMANDS[command]
  if (!load) {
    io.stderr.write(`toolbelt: unknown command "${command}".\n\n${HELP}`)
    return EXIT.usage
  }
  const { command: entry } = await load()
  try {
    return await entry.run(rest, io)
  } catch (error) {
    const message = (error as Error).message ?? String(error)
    if (error instanceof Interrupted) {
      if (asksForJson(rest) && !wroteJson(io.stdout))
        writeJson(io.stdout, { status: "error", error: message })
      io.stderr.write(`toolbelt ${command}: ${message}\n`)
      return EXIT.interrupted
    }
    const code = (error as NodeJS.ErrnoException).code
    const usage = code?.startsWith("ERR_PARSE_ARGS") || (error as Error).name === "UsageError"
    const help = usage && (error as Partial<UsageError>).help !== false
    // `--json` promises one JSON object on stdout whatever happens, a failure before the command
    // could print its own included.
    if (asksForJson(rest) && !wroteJson(io.stdout)) writeJson(io.stdout, { status: "error", error: message })
    io.stderr.write(`toolbelt ${command}: ${message}\n${help ? `\n${entry.help}` : ""}`)
    return usage ? EXIT.usage : EXIT.failed
  }
}

/** Whether `--json` is among the flags (after `--` it is an argument, e.g. a prompt, not the flag). */
function asksForJson(argv: string[]): boolean {
  const end = argv.indexOf("--")
  return (end < 0 ? argv : argv.slice(0, end)).includes("--json")
}

async function version(): Promise<string> {
  const { readFile } = await import("node:fs/promises")
  const pkg = JSON.parse(await readFile(new URL("../../../package.json", import.meta.url), "utf8")) as {
    version: string
  }
  return pkg.version
}
