import { internals } from "../../../compose/internals.ts"
import { createToolbelt } from "../../../compose/toolbelt.ts"
import { thousands } from "../../../platform/text/thousands.ts"
import { TOKENIZER } from "../../../platform/text/tokens/count.ts"
import { type Command, parseCommandLine } from "../command-line.ts"
import { EXIT, type IO, writeJson } from "../io.ts"
import { projectDirectory } from "../project-dir.ts"
import { warnPluginErrors } from "../start-up.ts"
import { storeHelp, storeOption } from "../store-flag.ts"
import { chooseTrust, sayTrust } from "../trust-gate.ts"
import { leftOutSection } from "../trust-text.ts"

export const TOOLS_HELP = `Usage: toolbelt tools [--json] [--cwd DIR] [--agent NAME] [--trust] [--store URL]

Lists the tools registered for the project, one line each (name, the size of its definition in tokens,
the first line of its description, where it comes from, whether it is deferred), then the total and
what tool search defers and why, then the tools that are not offered and why (a web search tool without
a configured provider, an MCP server that did not start), then what the project would bring that is not
run until you trust it (its tool files, plugins, MCP servers, ...) and how to trust it. With --json:
every tool's full description and input JSON Schema instead.

Tokens are counted with OpenAI's o200k_base tokenizer over the JSON {name, description, input_schema}
of each definition. A deferred tool (config "tool_search": "auto" past "tool_search_budget" tokens or
128 tools, or "on") is not listed to clients up front: tool_search finds it, and it is callable by name.

Options:
  --json        print one JSON array: [{name, description, inputSchema, annotations, source, tokens,
                deferred}], with each tool's JSON Schema; what an untrusted project left out is then
                said on stderr
  --cwd DIR     the project directory (default: the current directory)
  --agent NAME  the agent the tools are prepared for (default: build)
  --trust       apply what the project brings for this run without it being trusted (TOOLBELT_TRUST=1
                does the same); said on stderr. On a terminal, a project not trusted that brings any
                asks first
${storeHelp(16)}  -h, --help    show this help
`

/** The command line `tools` takes. */
const TOOLS_LINE = {
  help: TOOLS_HELP,
  shared: ["json", "cwd", "agent", "trust", "store"],
  positionals: false,
} as const

export const command: Command = { run: toolsCommand, help: TOOLS_HELP }

export async function toolsCommand(argv: string[], io: IO): Promise<number> {
  const line = parseCommandLine({ argv, io, ...TOOLS_LINE })
  if (!line) return EXIT.ok
  const { values } = line
  const store = storeOption(values.store)
  const directory = projectDirectory(values.cwd, io.cwd)
  const choice = await chooseTrust({ io, directory, flag: values.trust, ask: true })
  const toolbelt = await createToolbelt({
    directory,
    env: io.env,
    ...store,
    ...(choice.trust ? { trust: true } : {}),
    sweep: false,
  })
  try {
    sayTrust(toolbelt.trust, io, { command: "tools", choice })
    warnPluginErrors(toolbelt, io)
    const query = { agent: values.agent ?? "build", client: "cli" }
    const tools = await toolbelt.tools({ ...query, listing: "all" })
    // By code unit, not localeCompare: setting up ICU's collation costs more than this whole listing.
    tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
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
          tokens: tool.tokens ?? 0,
          deferred: tool.deferred ?? false,
        })),
      )
    } else if (tools.length === 0) {
      io.stdout.write("No tools are registered.\n")
    } else {
      const width = Math.max(...tools.map((tool) => tool.name.length))
      const counts = tools.map((tool) => thousands(tool.tokens ?? 0))
      const countWidth = Math.max(6, ...counts.map((count) => count.length))
      io.stdout.write(`${"Tool".padEnd(width)}  ${"Tokens".padStart(countWidth)}  Description\n`)
      tools.forEach((tool, i) => {
        const summary = tool.description.split("\n")[0]!.slice(0, 100)
        const source = tool.entry.source === "builtin" ? "" : `  [${tool.entry.source}]`
        const deferred = tool.deferred ? "  (deferred)" : ""
        io.stdout.write(
          `${tool.name.padEnd(width)}  ${counts[i]!.padStart(countWidth)}  ${summary}${source}${deferred}\n`,
        )
      })
      io.stdout.write(`\n${await searchSummary(toolbelt, query, tools)}\n`)
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

/**
 * The tax, said: what all the definitions take (tokenizer named), what a client gets up front, and what
 * tool search defers and why.
 */
async function searchSummary(
  toolbelt: Awaited<ReturnType<typeof createToolbelt>>,
  query: { agent: string; client: string },
  tools: readonly { tokens?: number; deferred?: boolean }[],
): Promise<string> {
  const state = await internals(toolbelt).toolSearch.state(query)
  const all = tools.reduce((sum, tool) => sum + (tool.tokens ?? 0), 0)
  const upFront = tools.filter((tool) => !tool.deferred)
  const upFrontTokens = upFront.reduce((sum, tool) => sum + (tool.tokens ?? 0), 0)
  const n = thousands
  const lines = [
    `Total: ${n(all)} tokens (${TOKENIZER}) for ${tools.length} tools; listed up front: ${n(upFrontTokens)} tokens for ${upFront.length}.`,
    `Tool search: "${state.mode}", budget ${n(state.budget)} tokens. ${
      state.deferred
        ? `${state.deferred} tools are deferred (found with tool_search, callable by name): ${state.reason}.`
        : `Nothing is deferred: ${state.reason}.`
    }`,
  ]
  return lines.join("\n")
}
