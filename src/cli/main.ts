import { EXIT, type IO, processIO, writeJson, wroteJson } from "./io.ts"

const HELP = `toolbelt: the tool runtime of a coding agent

Usage: toolbelt <command> [options]

Commands:
  tools     list the registered tools and their JSON Schemas
  call      run one tool call through the full pipeline
  mcp       serve the tools to MCP clients (stdio, or --http PORT)
  permissions  the permission policy and where each rule came from; list or revoke saved approvals
  run       an agent turn: a model (AI SDK provider or local server) calling the tools

Run "toolbelt <command> --help" for a command's options.
`

interface Command {
  readonly run: (argv: string[], io: IO) => Promise<number>
  readonly help: string
}

// Loaded on demand: `toolbelt --help` or `toolbelt call` does not pay for the AI SDK or the MCP SDK.
const COMMANDS: Record<string, () => Promise<Command>> = {
  tools: async () => {
    const m = await import("./commands/tools.ts")
    return { run: m.toolsCommand, help: m.TOOLS_HELP }
  },
  call: async () => {
    const m = await import("./commands/call.ts")
    return { run: m.callCommand, help: m.CALL_HELP }
  },
  mcp: async () => {
    const m = await import("./commands/mcp.ts")
    return { run: m.mcpCommand, help: m.MCP_HELP }
  },
  permissions: async () => {
    const m = await import("./commands/permissions.ts")
    return { run: m.permissionsCommand, help: m.PERMISSIONS_HELP }
  },
  run: async () => {
    const m = await import("./commands/run.ts")
    return { run: m.runCommand, help: m.RUN_HELP }
  },
}

/** Runs one command line; returns the exit code. */
export async function main(argv: string[], io: IO = processIO()): Promise<number> {
  const [command, ...rest] = argv
  if (!command || command === "--help" || command === "-h" || command === "help") {
    const topic = command === "help" ? rest[0] : undefined
    const load = topic ? COMMANDS[topic] : undefined
    io.stdout.write(load ? (await load()).help : HELP)
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
  const entry = await load()
  try {
    return await entry.run(rest, io)
  } catch (error) {
    const message = (error as Error).message ?? String(error)
    const code = (error as NodeJS.ErrnoException).code
    const usage = code?.startsWith("ERR_PARSE_ARGS") || (error as Error).name === "UsageError"
    // `--json` promises one JSON object on stdout whatever happens, a failure before the command
    // could print its own included.
    if (rest.includes("--json") && !wroteJson(io.stdout))
      writeJson(io.stdout, { status: "error", error: message })
    io.stderr.write(`toolbelt ${command}: ${message}\n${usage ? `\n${entry.help}` : ""}`)
    return usage ? EXIT.usage : EXIT.failed
  }
}

async function version(): Promise<string> {
  const { readFile } = await import("node:fs/promises")
  const pkg = JSON.parse(await readFile(new URL("../../package.json", import.meta.url), "utf8")) as {
    version: string
  }
  return pkg.version
}
