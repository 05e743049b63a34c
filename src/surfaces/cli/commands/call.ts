import { internals } from "../../../compose/internals.ts"
import type { InterruptedCall } from "../../../runtime/settle/interrupted-calls.ts"
import type { Settlement } from "../../../runtime/settle/settle.ts"
import { type Command, parseCommandLine } from "../command-line.ts"
import { EXIT, Interrupted, type IO, isTerminal, readAll, UsageError, writeJson } from "../io.ts"
import { checkAgent, openForCalls, warnStartUp } from "../start-up.ts"
import { CommandStop } from "../stop-signal.ts"
import { storeHelp } from "../store-flag.ts"
import { unknownToolReason } from "../trust-text.ts"

export const CALL_HELP = `Usage: toolbelt call <tool> [ARGS_JSON|-] [options]

Runs one tool call through the full pipeline (validation, permission, execution, output bounding).
ARGS_JSON is the tool's arguments as a JSON object ("-" reads them from stdin; omitted means {}).

Options:
  --cwd DIR       the project directory (default: the current directory)
  --session ID    the session the call belongs to (keeps the read ledger and approvals across calls)
  --agent NAME    the agent whose permissions apply (default: the one the session runs as, else build)
  --yes           approve permission asks (otherwise they are prompted on a TTY, rejected if not)
  --trust         apply what the project brings (tool files, plugins, MCP servers, ...) for this run,
                  without it being trusted (TOOLBELT_TRUST=1 does the same); said on stderr. On a
                  terminal, a project not trusted that brings any asks first
  --diagnostics   after a change to files, wait for the language servers' errors and show them (off
                  by default here: each call would start a server cold, for seconds; on in run, mcp, serve)
  --json          print one JSON object: {"status":"completed","title","output","metadata","attachments"}
                  or {"status":"error","error"}
${storeHelp(18)}  -h, --help      show this help

Exit codes: 0 completed, 1 the tool returned an error (a rejected permission ask included: "r" or
Ctrl+D at the prompt), 2 usage error (unknown tool, a tool not offered here and why, bad JSON), 130
interrupted (Ctrl+C, also at a prompt).
`

/** The command line `call` takes. */
const CALL_LINE = {
  help: CALL_HELP,
  shared: ["cwd", "session", "agent", "yes", "json", "trust", "store"],
  flags: { diagnostics: { type: "boolean" } },
} as const

export const command: Command = { run: callCommand, help: CALL_HELP }

export async function callCommand(argv: string[], io: IO): Promise<number> {
  const line = parseCommandLine({ argv, io, ...CALL_LINE })
  if (!line) return EXIT.ok
  const { values, positionals } = line
  const json = values.json ?? false
  const [name, rawArgs, ...rest] = positionals
  if (!name)
    throw new UsageError(
      "Missing the tool name. Usage: toolbelt call <tool> [ARGS_JSON|-]; toolbelt tools lists the tools.",
      { help: false },
    )
  if (rest.length)
    throw new UsageError(
      `Unexpected arguments: ${rest.join(" ")}. Pass the tool's arguments as one JSON object.`,
      { help: false },
    )
  const input = await parseInput(rawArgs, io)

  const stop = new CommandStop()
  const toolbelt = await openForCalls({
    io,
    command: "call",
    cwd: values.cwd,
    yes: values.yes,
    trust: values.trust,
    store: values.store,
    editDiagnostics: values.diagnostics ?? false,
    stop,
  })
  const stopListening = stop.listen()
  try {
    warnStartUp(toolbelt, io)
    // A session in plan mode runs as plan unless --agent says otherwise.
    const session = values.session ? internals(toolbelt).store.sessionAgents.get(values.session) : undefined
    const agent = values.agent ?? session ?? "build"
    checkAgent(toolbelt, agent)
    const ids = internals(toolbelt).registry.ids()
    const known = ids.includes(name) ? name : internals(toolbelt).registry.repairName(name, ids)
    if (!known) {
      const offered = await toolbelt.tools({ agent, client: "cli", interactive: isTerminal(io, "stdin") })
      const available = offered.map((tool) => tool.name).sort()
      // A tool whose tool file did not load is not unknown either: say which file and why.
      const failed = (await toolbelt.withheld({ agent, client: "cli" })).find((tool) => tool.name === name)
      if (failed) throw new UsageError(`"${name}" is not offered here: ${failed.reason}`, { help: false })
      // A tool the untrusted project would bring is not unknown: say which file and how to trust it.
      const untrusted = unknownToolReason(toolbelt.trust, name)
      throw new UsageError(
        untrusted
          ? `Unknown tool "${name}": ${untrusted}`
          : `Unknown tool "${name}". Use one of the available tools: ${available.join(", ") || "(none)"}.`,
        { help: false },
      )
    }
    // A tool this surface does not offer (no search provider configured, batch not enabled, no model
    // for a subagent) is not run either: the same answer the model would get, with the reason.
    const query = { agent, client: "cli", interactive: isTerminal(io, "stdin") }
    const withheld = (await toolbelt.withheld(query)).find((tool) => tool.name === known)
    if (withheld) throw new UsageError(`"${known}" is not offered here: ${withheld.reason}`, { help: false })
    const result = await toolbelt.call({
      tool: known,
      input,
      agent,
      abort: stop.signal,
      ...(values.session ? { sessionID: values.session } : {}),
    })
    // Stopped (Ctrl+C at the prompt, or a signal): one line from main and exit 130, not the call's error.
    if (stop.signal.aborted && result.status === "error" && result.metadata.interrupted === true) {
      const interrupted = result.metadata.interrupted_calls as readonly InterruptedCall[] | undefined
      if (interrupted) warnInterrupted(interrupted, io)
      throw new Interrupted(stop.message("the call was stopped and is recorded as interrupted."))
    }
    report(result, json, io)
    return result.status === "completed" ? EXIT.ok : EXIT.failed
  } finally {
    stopListening()
    // The result is out and true (a completed call's work is done and recorded): a failure to close the
    // store now, e.g. another process holding the database past the busy timeout, is a warning, not a
    // second answer that contradicts the first.
    await toolbelt.close().catch((error: unknown) => {
      io.stderr.write(`toolbelt call: warning: closing the store failed: ${(error as Error).message}\n`)
    })
  }
}

async function parseInput(raw: string | undefined, io: IO): Promise<unknown> {
  const text = raw === "-" ? await readAll(io.stdin) : raw
  if (text === undefined || text.trim() === "") return {}
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new UsageError(
      `ARGS_JSON is not valid JSON (${(error as Error).message}). Pass one JSON object, e.g. '{"filePath":"README.md"}'.`,
      { help: false },
    )
  }
}

function report(result: Settlement, json: boolean, io: IO): void {
  const interrupted = result.metadata.interrupted_calls as readonly InterruptedCall[] | undefined
  if (interrupted) warnInterrupted(interrupted, io)
  if (json) {
    if (result.status === "completed") {
      writeJson(io.stdout, {
        status: "completed",
        title: result.title,
        output: result.output,
        metadata: result.metadata,
        attachments: result.attachments,
      })
    } else {
      writeJson(io.stdout, {
        status: "error",
        error: result.error,
        ...(interrupted ? { metadata: { interrupted_calls: interrupted } } : {}),
      })
    }
    return
  }
  if (result.status === "completed") {
    io.stdout.write(result.output.endsWith("\n") ? result.output : `${result.output}\n`)
    if (result.attachments.length)
      io.stderr.write(
        `(${result.attachments.length} attachment(s): ${result.attachments.map((a) => a.mime).join(", ")})\n`,
      )
  } else {
    io.stderr.write(`Error: ${result.error}\n`)
  }
}

/** One warning naming the session's calls that a killed process left unfinished (shown once). */
function warnInterrupted(calls: readonly InterruptedCall[], io: IO): void {
  const lines = calls.map(
    (call) =>
      `  ${call.tool} ${call.input} (${call.callID}, started ${new Date(call.time.start).toISOString()})\n`,
  )
  const head =
    calls.length === 1
      ? "a call of this session never finished: the process running it was killed or crashed, so it may have done part of its work. Check what it touched before relying on it:"
      : `${calls.length} calls of this session never finished: the processes running them were killed or crashed, so they may have done part of their work. Check what they touched before relying on them:`
  io.stderr.write(`warning: ${head}\n${lines.join("")}`)
}
