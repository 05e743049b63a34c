import { createToolbelt } from "../../../compose/toolbelt.ts"
import { type Command, parseCommandLine } from "../command-line.ts"
import { EXIT, type IO, writeJson } from "../io.ts"
import { projectDirectory } from "../project-dir.ts"
import { warnPluginErrors } from "../start-up.ts"
import { chooseTrust, sayTrust } from "../trust-gate.ts"
import { leftOutSection } from "../trust-text.ts"

export const TOOLS_HELP = `Usage: toolbelt tools [--json] [--cwd DIR] [--agent NAME] [--trust]

Lists the tools registered for the project, one line each (name, the first line of its description,
where it comes from), then the tools that are not offered and why (a web search tool without a
configured provider, an MCP server that did not start), then what the project would bring that is not
run until you trust it (its tool files, plugins, MCP servers, ...) and how to trust it. With --json:
every tool's full description and input JSON Schema instead.

Options:
  --json        print one JSON array: [{name, description, inputSchema, annotations, source}], with
                each tool's JSON Schema; what an untrusted project left out is then said on stderr
  --cwd DIR     the project directory (default: the current directory)
  --agent NAME  the agent the tools are prepared for (default: build)
  --trust       apply what the project brings for this run without it being trusted (TOOLBELT_TRUST=1
                does the same); said on stderr. On a terminal, a project not trusted that brings any
                asks first
  -h, --help    show this help
`

/** The command line `tools` takes. */
const TOOLS_LINE = {
  help: TOOLS_HELP,
  shared: ["json", "cwd", "agent", "trust"],
  positionals: false,
} as const

export const command: Command = { run: toolsCommand, help: TOOLS_HELP }

export async function toolsCommand(argv: string[], io: IO): Promise<number> {
  const line = parseCommandLine({ argv, io, ...TOOLS_LINE })
  if (!line) return EXIT.ok
  const { values } = line
  const directory = projectDirectory(values.cwd, io.cwd)
  const choice = await chooseTrust({ io, directory, flag: values.trust, ask: true })
  const toolbelt = await createToolbelt({
    directory,
    env: io.env,
    ...(choice.trust ? { trust: true } : {}),
    sweep: false,
  })
  try {
    sayTrust(toolbelt.trust, io, { command: "tools", choice })
    warnPluginErrors(toolbelt, io)
    const query = { agent: values.agent ?? "build", client: "cli" }
    const tools = await toolbelt.tools(query)
    tools.sort((a, b) => a.name.localeCompare(b.name))
    if (values.json) {
      // The array is the contract scripts and tests already parse; the trust note goes to stderr.
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
      // The schemas are long: the list points to where they are rather than printing them.
      io.stdout.write("\nTheir input JSON Schemas and full descriptions: toolbelt tools --json\n")
      // Tools that need something configured say what, so a missing tool is never a mystery.
      const withheld = await toolbelt.withheld(query)
      if (withheld.length) io.stdout.write("\nNot offered:\n")
      for (const { name, reason } of withheld) io.stdout.write(`${name.padEnd(width)}  ${reason}\n`)
    }
    // What the project would bring, left out until it is trusted, and the command that trusts it.
    ;(values.json ? io.stderr : io.stdout).write(leftOutSection(toolbelt.trust))
    return EXIT.ok
  } finally {
    await toolbelt.close()
  }
}
