import { parseArgs } from "node:util"
import { createToolbelt } from "../../toolbelt/toolbelt.ts"
import { EXIT, type IO, writeJson } from "../io.ts"
import { projectDirectory } from "../project-dir.ts"

export const TOOLS_HELP = `Usage: toolbelt tools [--json] [--cwd DIR] [--agent NAME]

Lists the tools registered for the project, with their JSON Schemas.

Options:
  --json        print a JSON array of {name, description, inputSchema, annotations, source}
  --cwd DIR     the project directory (default: the current directory)
  --agent NAME  the agent the tools are prepared for (default: build)
  -h, --help    show this help
`

export async function toolsCommand(argv: string[], io: IO): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      json: { type: "boolean" },
      cwd: { type: "string" },
      agent: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
    allowPositionals: false,
  })
  if (values.help) {
    io.stdout.write(TOOLS_HELP)
    return EXIT.ok
  }
  const toolbelt = await createToolbelt({ directory: projectDirectory(values.cwd, io.cwd), sweep: false })
  try {
    for (const failure of toolbelt.pluginErrors)
      io.stderr.write(`warning: plugin ${failure.spec} not loaded: ${failure.error}\n`)
    const tools = await toolbelt.tools({ agent: values.agent ?? "build", client: "cli" })
    tools.sort((a, b) => a.name.localeCompare(b.name))
    if (values.json) {
      writeJson(
        io.stdout,
        tools.map((tool) => ({
          name: tool.name,
          description: tool.description,
          inputSchema: tool.inputSchema,
          annotations: tool.annotations,
          source: tool.entry.source,
        })),
      )
    } else if (tools.length === 0) {
      io.stdout.write("No tools are registered.\n")
    } else {
      const width = Math.max(...tools.map((tool) => tool.name.length))
      for (const tool of tools) {
        const summary = tool.description.split("\n")[0]!.slice(0, 100)
        const source = tool.entry.source === "builtin" ? "" : `  [${tool.entry.source}]`
        io.stdout.write(`${tool.name.padEnd(width)}  ${summary}${source}\n`)
      }
    }
    return EXIT.ok
  } finally {
    await toolbelt.close()
  }
}
