import { DEFAULT_STEPS, runTurn, type TurnResult } from "../../../adapters/ai/loop.ts"
import { MODEL_CHOICES, ModelSpecError, PROVIDERS, resolveModel } from "../../../adapters/ai/provider.ts"
import { internals } from "../../../compose/internals.ts"
import type { ToolPart } from "../../../platform/store/part.ts"
import type { Subscription } from "../../../runtime/bus/bus.ts"
import { DEFAULT_AGENT } from "../../../runtime/permission/agents/agent.ts"
import { type Command, parseCommandLine } from "../command-line.ts"
import { EXIT, Interrupted, type IO, isTerminal, readAll, UsageError } from "../io.ts"
import { checkAgent, openForCalls, warnStartUp } from "../start-up.ts"
import { CommandStop } from "../stop-signal.ts"
import { storeHelp } from "../store-flag.ts"
import { TurnParts } from "./turn-parts.ts"

export const RUN_HELP = `Usage: toolbelt run "<prompt>" [options]

Runs an agent turn: the model gets the prompt and the project's tools, and calls them (through the
full pipeline: validation, permission, bounding, the journal) until it answers. The tool calls are
shown live on stderr (states, streaming shell output, diffs); the model's text goes to stdout.
A prompt of "-" is read from stdin.

Options:
  --model PROVIDER/ID  the model (default: $TOOLBELT_MODEL). Providers: ${PROVIDERS.join(", ")}
                       openai needs OPENAI_API_KEY, anthropic ANTHROPIC_API_KEY; openai-compatible
                       speaks chat completions at --base-url (llama.cpp, Ollama, vLLM, LM Studio),
                       with TOOLBELT_API_KEY when the server wants a key
  --base-url URL       the server for openai-compatible (default: $TOOLBELT_BASE_URL), e.g.
                       http://127.0.0.1:8080/v1; for openai and anthropic it overrides their endpoint
  --cwd DIR            the project directory (default: the current directory)
  --agent NAME         the agent whose permissions apply; the session keeps it (default: the agent
                       the session runs as, which plan mode switches, else build)
  --steps N            the most model calls in the turn (default: the agent's steps, else
                       ${DEFAULT_STEPS}); the last one answers without tools
  --session ID         continue a session (its history is replayed to the model)
  --yes                approve permission asks (otherwise they are prompted on a TTY, rejected if not)
  --trust              apply what the project brings (tool files, plugins, MCP servers, ...) for this
                       run without it being trusted (TOOLBELT_TRUST=1 does the same); said on stderr.
                       On a terminal, a project not trusted that brings any asks first
${storeHelp(23)}  -h, --help           show this help

Exit codes: 0 the turn finished; 1 a model or tool failure stopped it (provider error, a rejected
permission, a denied doom loop); 2 usage error; 130 interrupted (Ctrl-C).
`

/** The command line `run` takes. */
const RUN_LINE = {
  help: RUN_HELP,
  shared: ["cwd", "agent", "session", "yes", "trust", "store"],
  flags: {
    model: { type: "string", short: "m" },
    "base-url": { type: "string" },
    steps: { type: "string" },
  },
} as const

export const command: Command = { run: runCommand, help: RUN_HELP }

export async function runCommand(argv: string[], io: IO): Promise<number> {
  const line = parseCommandLine({ argv, io, ...RUN_LINE })
  if (!line) return EXIT.ok
  const { values, positionals } = line
  const usage = (message: string) => new UsageError(message, { help: false })

  let prompt = positionals.join(" ")
  if (prompt === "-") prompt = await readAll(io.stdin)
  if (!prompt.trim()) throw usage('missing the prompt. Usage: toolbelt run "<prompt>" [--model provider/id]')
  // Not given: the agent's own `steps`, else the default (the loop decides).
  const steps = values.steps === undefined ? undefined : Number(values.steps)
  if (steps !== undefined && (!Number.isInteger(steps) || steps < 1))
    throw usage(`--steps must be a positive integer, got "${values.steps}".`)
  const spec = values.model ?? io.env.TOOLBELT_MODEL
  if (!spec) throw usage(`no model: pass --model provider/id (or set TOOLBELT_MODEL). ${MODEL_CHOICES}`)
  let model: ReturnType<typeof resolveModel>
  try {
    const baseURL = values["base-url"]
    model = resolveModel({ spec, env: io.env, ...(baseURL ? { baseURL } : {}) })
  } catch (error) {
    if (error instanceof ModelSpecError) throw usage(error.message)
    throw error
  }

  const stop = new CommandStop()
  const toolbelt = await openForCalls({
    io,
    command: "run",
    cwd: values.cwd,
    yes: values.yes,
    trust: values.trust,
    store: values.store,
    leftOut: true,
    stop,
  })
  const stopListening = stop.listen()
  const color = isTerminal(io, "stderr") && !io.env.NO_COLOR
  const shown = new Set<string>()
  let subscription: Subscription | undefined
  try {
    warnStartUp(toolbelt, io)
    const agent = values.agent
    if (agent !== undefined) checkAgent(toolbelt, agent)
    const stored = values.session ? internals(toolbelt).store.sessionAgents.get(values.session) : undefined
    const before = agent ?? stored ?? DEFAULT_AGENT
    let text = ""
    const result = await runTurn({
      toolbelt,
      model,
      prompt,
      ...(agent === undefined ? {} : { agent }),
      // Questions (and plan mode's approval) are offered only where the person can answer them.
      interactive: isTerminal(io, "stdin"),
      ...(steps === undefined ? {} : { steps }),
      abort: stop.signal,
      ...(values.session ? { sessionID: values.session } : {}),
      onStart: ({ sessionID }) => {
        // The turn's calls, and those of the subagents it starts, indented under them.
        const view = new TurnParts({
          root: sessionID,
          session: (id) => internals(toolbelt).store.sessions.get(id),
          out: io.stderr,
          make: (out) => new PartRenderer(out, color, shown),
        })
        subscription = toolbelt.subscribe("message.part.updated", (event) =>
          view.update(event.properties.part),
        )
      },
      onPart: (part) => {
        if (part.type === "text-delta") {
          io.stdout.write(part.text)
          text += part.text
        } else if (part.type === "finish-step" && text && !text.endsWith("\n")) {
          io.stdout.write("\n")
          text += "\n"
        }
      },
    })
    if (text && !text.endsWith("\n")) io.stdout.write("\n")
    await drain(subscription)
    return report(result, io, { before, shown, stop })
  } finally {
    subscription?.()
    stopListening()
    // Awaited: the process exits once this returns, and the store must have closed by then.
    await toolbelt.close().catch((error: unknown) => {
      io.stderr.write(`toolbelt run: warning: closing the store failed: ${(error as Error).message}\n`)
    })
  }
}

/** Lets the renderer show the last part states (the bus delivers asynchronously). */
async function drain(subscription: Subscription | undefined): Promise<void> {
  for (let round = 0; subscription && subscription.pending > 0 && round < 1000; round++) {
    await new Promise((resolve) => setImmediate(resolve))
  }
}

/**
 * How the turn ended; `before` is the agent it started as (plan mode may have switched it), `shown` the
 * errors the live view printed in full (a refusal that stopped the turn is not said twice), `stop` what
 * stopped it (a signal, or Ctrl+C at a prompt).
 */
function report(
  result: TurnResult,
  io: IO,
  { before, shown, stop }: { before: string; shown: ReadonlySet<string>; stop: CommandStop },
): number {
  const session = `(session ${result.sessionID})`
  switch (result.status) {
    case "finished":
      if (result.stepLimit) io.stderr.write(`toolbelt run: the turn used all its steps ${session}\n`)
      if (result.agent !== before)
        io.stderr.write(
          `toolbelt run: the session runs as the ${result.agent} agent now; continue it with --session ${result.sessionID}\n`,
        )
      return EXIT.ok
    case "aborted":
      // main says it in one line and exits 130, as for every command the person stopped.
      throw new Interrupted(stop.message(`the turn was stopped ${session}.`))
    case "blocked":
      io.stderr.write(
        result.error !== undefined && shown.has(result.error)
          ? `toolbelt run: stopped at the call above (its error says why) ${session}\n`
          : `toolbelt run: stopped: ${result.error} ${session}\n`,
      )
      return EXIT.failed
    case "failed":
      io.stderr.write(`toolbelt run: the model failed: ${result.error} ${session}\n`)
      return EXIT.failed
  }
}

/**
 * Shows tool parts as they move: a line when a call starts, its streaming output (the shell's
 * `metadata.output`) as it grows, and the outcome with the diff (`metadata.diff`) of file changes.
 */
/** The longest first line of a failed call shown whole on its ✗ line. */
const ERROR_LINE_MAX = 1000

export class PartRenderer {
  readonly #out: NodeJS.WritableStream
  readonly #color: boolean
  readonly #shown: Set<string> | undefined
  readonly #seen = new Map<string, { status: string; printed: string; partial: string }>()

  /** `shown` collects the errors printed in full (not cut), so the command need not repeat them. */
  constructor(out: NodeJS.WritableStream, color: boolean, shown?: Set<string>) {
    this.#out = out
    this.#color = color
    this.#shown = shown
  }

  update(part: ToolPart): void {
    let seen = this.#seen.get(part.id)
    if (!seen) {
      seen = { status: "new", printed: "", partial: "" }
      this.#seen.set(part.id, seen)
    }
    if (seen.status === "completed" || seen.status === "error") return
    const state = part.state
    if (state.status === "pending") {
      seen.status = "pending"
      return
    }
    if (seen.status !== "running") {
      const summary = summarize(part)
      this.#write(`${this.#paint("36", "→")} ${this.#paint("1", part.tool)}${summary ? ` ${summary}` : ""}\n`)
      seen.status = "running"
    }
    const output = state.metadata?.output
    if (typeof output === "string") this.#stream(seen, output)
    if (state.status === "running") return
    this.#flush(seen)
    seen.status = state.status
    if (state.status === "completed") {
      this.#write(`${this.#paint("32", "✓")} ${part.tool} ${state.title}\n`)
      const diff = state.metadata.diff
      if (typeof diff === "string" && diff.trim()) this.#diff(diff)
    } else {
      const interrupted = state.metadata?.interrupted === true
      const first = state.error.split("\n")[0] ?? ""
      // A refusal is one line that names paths and commands: cut only a line no one reads whole, so the
      // refusal that stops a turn is said here in full, once, wherever the project lives.
      const line = clip(first, ERROR_LINE_MAX)
      if (line === state.error) this.#shown?.add(state.error)
      this.#write(`${this.#paint("31", interrupted ? "⊘" : "✗")} ${part.tool}: ${line}\n`)
    }
  }

  /** Prints what `output` adds to what was printed (whole lines; the rest when the call ends). */
  #stream(seen: { printed: string; partial: string }, output: string): void {
    let added: string
    if (output.startsWith(seen.printed)) added = output.slice(seen.printed.length)
    else {
      // A bounded tail moved on: continue after the last line printed, if it is still there.
      const lines = seen.printed.trimEnd().split("\n")
      const last = lines.at(-1) ?? ""
      const at = last ? output.lastIndexOf(`${last}\n`) : -1
      added = at >= 0 ? output.slice(at + last.length + 1) : `…\n${output}`
      seen.partial = ""
    }
    seen.printed = output
    const text = seen.partial + added
    const end = text.lastIndexOf("\n")
    if (end < 0) {
      seen.partial = text
      return
    }
    for (const line of text.slice(0, end).split("\n")) this.#write(`  ${this.#paint("2", "│")} ${line}\n`)
    seen.partial = text.slice(end + 1)
  }

  #flush(seen: { partial: string }): void {
    if (seen.partial) this.#write(`  ${this.#paint("2", "│")} ${seen.partial}\n`)
    seen.partial = ""
  }

  #diff(diff: string): void {
    for (const line of diff.replace(/\n$/, "").split("\n")) {
      const code =
        line.startsWith("+") && !line.startsWith("+++")
          ? "32"
          : line.startsWith("-") && !line.startsWith("---")
            ? "31"
            : line.startsWith("@@")
              ? "36"
              : "2"
      this.#write(`  ${this.#paint(code, line)}\n`)
    }
  }

  #paint(code: string, text: string): string {
    return this.#color ? `\u001b[${code}m${text}\u001b[0m` : text
  }

  #write(text: string): void {
    this.#out.write(text)
  }
}

/** The call in a few words: its title, else the path or command it works on, else its input. */
function summarize(part: ToolPart): string {
  const state = part.state
  if (state.status === "running" && state.title) return state.title
  const input = state.input
  for (const key of ["filePath", "path", "command", "pattern", "url", "description"]) {
    const value = input[key]
    if (typeof value === "string" && value) return clip(value.split("\n")[0] ?? "", 120)
  }
  const json = JSON.stringify(input)
  return json === "{}" ? "" : clip(json, 120)
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}
