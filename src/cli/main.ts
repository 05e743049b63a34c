import { CALL_HELP, callCommand } from "./commands/call.ts"
import { MCP_HELP, mcpCommand } from "./commands/mcp.ts"
import { PERMISSIONS_HELP, permissionsCommand } from "./commands/permissions.ts"
import { RUN_HELP, runCommand } from "./commands/run.ts"
import { TOOLS_HELP, toolsCommand } from "./commands/tools.ts"
import { EXIT, type IO, processIO } from "./io.ts"

const HELP = `toolbelt: the tool runtime of a coding agent

Usage: toolbelt <command> [options]

Commands:
  tools     list the registered tools and their JSON Schemas
  call      run one tool call through the full pipeline
  mcp       serve the tools to MCP clients (stdio, or --http PORT)
  permissions  list or revoke the "always" approvals saved for a project
  run       an agent turn: a model (AI SDK provider or local server) calling the tools

Run "toolbelt <command> --help" for a command's options.
`

const COMMANDS: Record<string, { run: (argv: string[], io: IO) => Promise<number>; help: string }> = {
  tools: { run: toolsCommand, help: TOOLS_HELP },
  call: { run: callCommand, help: CALL_HELP },
  mcp: { run: mcpCommand, help: MCP_HELP },
  permissions: { run: permissionsCommand, help: PERMISSIONS_HELP },
  run: { run: runCommand, help: RUN_HELP },
}

/** Runs one command line; returns the exit code. */
export async function main(argv: string[], io: IO = processIO()): Promise<number> {
  const [command, ...rest] = argv
  if (!command || command === "--help" || command === "-h" || command === "help") {
    const topic = command === "help" ? rest[0] : undefined
    io.stdout.write(topic && COMMANDS[topic] ? COMMANDS[topic].help : HELP)
    return EXIT.ok
  }
  if (command === "--version" || command === "-v") {
    io.stdout.write(`${await version()}\n`)
    return EXIT.ok
  }
  const entry = COMMANDS[command]
  if (!entry) {
    io.stderr.write(`toolbelt: unknown command "${command}".\n\n${HELP}`)
    return EXIT.usage
  }
  try {
    return await entry.run(rest, io)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code?.startsWith("ERR_PARSE_ARGS") || (error as Error).name === "UsageError") {
      io.stderr.write(`toolbelt ${command}: ${(error as Error).message}\n\n${entry.help}`)
      return EXIT.usage
    }
    io.stderr.write(`toolbelt ${command}: ${(error as Error).message}\n`)
    return EXIT.failed
  }
}

async function version(): Promise<string> {
  const { readFile } = await import("node:fs/promises")
  const pkg = JSON.parse(await readFile(new URL("../../package.json", import.meta.url), "utf8")) as {
    version: string
  }
  return pkg.version
}
