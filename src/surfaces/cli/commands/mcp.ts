import { internals } from "../../../compose/internals.ts"
import { createToolbelt } from "../../../compose/toolbelt.ts"
import { mcpSettings } from "../../../runtime/config/mcp-settings.ts"
import type { serveMcpHttp } from "../../mcp-server/http.ts"
import { serveMcpStdio } from "../../mcp-server/stdio.ts"
import { widenStdoutSocket } from "../../mcp-server/stdout-socket.ts"
import { unknownAgentIsUsage } from "../ceiling.ts"
import { type Command, parseCommandLine } from "../command-line.ts"
import { EXIT, type IO, isTerminal, UsageError } from "../io.ts"
import { listenFlags, noTokenWarning, SOCKET_NOTE } from "../listen-flags.ts"
import { projectDirectory } from "../project-dir.ts"
import { warnStartUp } from "../start-up.ts"
import { serveUntilStopped } from "../stop-signal.ts"
import { storeHelp, storeOption } from "../store-flag.ts"
import { sayTrust } from "../trust-gate.ts"

export const MCP_HELP = `Usage: toolbelt mcp [options]

Serves toolbelt's tools to MCP clients (Claude Desktop, Claude Code, Cursor, Codex, Zed, ...), behind
the project's permission policy. Over stdio by default: stdout carries only protocol messages, logs go
to stderr. Each connection is a session (its own read ledger and approvals).

Options:
  --cwd DIR       the project directory (default: the current directory)
  --agent NAME    the agent whose permissions apply (default: build); also a ceiling: a call that
                  names another agent is held to NAME's rules too
  --http PORT     serve streamable HTTP at http://HOST:PORT/mcp instead of stdio (0 picks a free port);
                  each client gets its own session
  --host HOST     the address to bind with --http (default: 127.0.0.1)
  --token TOKEN   with --http: require "Authorization: Bearer TOKEN" (default: $TOOLBELT_MCP_TOKEN, else
                  one is made up and printed: every account on this machine reaches a loopback port)
  --socket PATH   serve streamable HTTP on a Unix socket instead of a port (http://localhost/mcp over
                  it), created with mode 0600: only this account can connect, so no token is needed
  --no-token      with --http: no token on a loopback port; any local account can then run tools as you
                  (warned at every start; --socket is the safe way to go without one)
  --session-idle-ms MS
                  with --http: end a session unused for this long, killing its commands (default:
                  "mcp.session_idle_ms" of toolbelt.json, else 1800000 = 30 min); its id then gets 404
  --max-sessions N
                  with --http: live sessions at most; one more ends the longest idle (default:
                  "mcp.max_sessions", else 100)
  --max-request-bytes N
                  with --http: the largest request body (default: "mcp.max_request_bytes", else
                  16777216 = 16 MiB)
  --no-warm-up    over stdio: do not run the call path on a throwaway toolbelt once the first answer is
                  out (about a second of CPU, so that V8 optimises what your calls run before they come)
  --trust         apply what the project brings (tool files, plugins, MCP servers, ...) without it being
                  trusted, for this run (TOOLBELT_TRUST=1 does the same, e.g. in a client's config); said
                  on stderr. Until the project is trusted (toolbelt trust DIR), the client is told what
                  was left out
${storeHelp(18)}  -h, --help      show this help

Permission asks are shown to the person by the client (MCP elicitation: allow once, always, or reject
with a message). A client without elicitation gets the "mcp.ask" setting of toolbelt.json instead:
"reject" (the default; the error says how to allow the call in config), "allow", or "web" (the ask waits
for an answer in the page of "toolbelt serve", which also serves MCP at /mcp).

Client configuration, with toolbelt's clone at /path/to/toolbelt: the command is bin/toolbelt.js itself,
which starts the Node 24 that npm install put in the clone (whatever Node is on PATH, no second Node start):
  Claude Desktop, Claude Code, Cursor:
    {"mcpServers": {"toolbelt": {"command": "/path/to/toolbelt/bin/toolbelt.js", "args": ["mcp", "--cwd", "/path/to/project"]}}}
  opencode (opencode.json):
    {"mcp": {"toolbelt": {"type": "local", "command": ["/path/to/toolbelt/bin/toolbelt.js", "mcp", "--cwd", "/path/to/project"], "enabled": true}}}
After "npm link" in the clone, "toolbelt" can stand for "/path/to/toolbelt/bin/toolbelt.js".
`

/** How long after the connection's server is made the warm-up starts: its first answer is out by then. */
const WARM_UP_DELAY_MS = 50

/** How long after the connection's first answer stdout's socket is widened (stdout-socket.ts). */
const WIDEN_DELAY_MS = 50

/**
 * Runs the stdio call path on a throwaway toolbelt (stdio-warm-up.ts) shortly after the first answer, in
 * the background: the client's messages are served between its calls, and `signal` stops it. Resolves
 * once it ended and cleaned up (at once when stopped before it began). The store starts what it would
 * start under load (`expectLoad`: its checkpointer thread) at the same moment, not amid the client's
 * first calls, and not before the first answer, which would wait for it.
 */
function warmUpSoon(signal: AbortSignal, expectLoad: () => void): Promise<void> {
  const { promise, resolve } = Promise.withResolvers<void>()
  const timer = setTimeout(() => {
    signal.removeEventListener("abort", cancel)
    expectLoad()
    import("../../mcp-server/stdio-warm-up.ts")
      .then(({ warmUpStdio }) => warmUpStdio({ signal }))
      .then(() => resolve(), resolve)
  }, WARM_UP_DELAY_MS)
  const cancel = () => {
    clearTimeout(timer)
    resolve()
  }
  signal.addEventListener("abort", cancel, { once: true })
  return promise
}

/** What `toolbelt mcp` says on stderr when a person starts it in a terminal. */
export const BY_HAND_NOTE =
  "toolbelt mcp: this speaks MCP (JSON-RPC) on stdin/stdout for an MCP client, not for typing. Add it to\n" +
  "a client's config instead (toolbelt mcp --help shows how for Claude Desktop, Claude Code, Cursor and\n" +
  "opencode). Ctrl+D or Ctrl+C stops it.\n"

/** The command line `mcp` takes. */
const MCP_LINE = {
  help: MCP_HELP,
  shared: ["cwd", "agent", "trust", "store"],
  flags: {
    http: { type: "string" },
    host: { type: "string" },
    token: { type: "string" },
    socket: { type: "string" },
    "no-token": { type: "boolean" },
    "session-idle-ms": { type: "string" },
    "max-sessions": { type: "string" },
    "max-request-bytes": { type: "string" },
    "no-warm-up": { type: "boolean" },
  },
} as const

export const command: Command = { run: mcpCommand, help: MCP_HELP }

export async function mcpCommand(argv: string[], io: IO): Promise<number> {
  const line = parseCommandLine({ argv, io, ...MCP_LINE })
  if (!line) return EXIT.ok
  const { values, positionals } = line
  if (positionals.length)
    throw new UsageError(
      `Unexpected arguments: ${positionals.join(" ")}. toolbelt mcp takes only options (see toolbelt mcp --help).`,
    )
  const port = values.http === undefined ? undefined : Number(values.http)
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) {
    throw new UsageError(`--http needs a port number from 0 to 65535, not "${values.http}".`)
  }
  const limits = {
    sessionIdleMs: countFlag(values["session-idle-ms"], "--session-idle-ms"),
    maxSessions: countFlag(values["max-sessions"], "--max-sessions"),
    maxRequestBytes: countFlag(values["max-request-bytes"], "--max-request-bytes"),
  }
  const httpOnly = [values.host, values.token, values["no-token"], ...Object.values(limits)].some(
    (value) => value !== undefined,
  )
  if (port === undefined && values.socket === undefined && httpOnly) {
    throw new UsageError(
      "--host, --token, --no-token, --session-idle-ms, --max-sessions and --max-request-bytes only apply with --http PORT or --socket PATH.",
    )
  }
  const bind = listenFlags({ ...values, port: values.http }, io.env.TOOLBELT_MCP_TOKEN, "mcp")
  const http = port !== undefined || bind.socket !== undefined
  const store = storeOption(values.store)

  const directory = projectDirectory(values.cwd, io.cwd)

  // Over stdio, stdout is the protocol: a plugin's console.log must not corrupt it.
  const restoreConsole = http ? () => {} : consoleToStderr()
  // --agent is a ceiling: a call naming a more permissive agent is held to its rules too.
  const toolbelt = await createToolbelt({
    directory,
    env: io.env,
    ...store,
    ...(values.trust ? { trust: true } : {}),
    ...(values.agent === undefined ? {} : { ceiling: values.agent }),
  }).catch(unknownAgentIsUsage)
  const agent = values.agent ?? "build"
  try {
    try {
      internals(toolbelt).permission.evaluate({ permission: "*", pattern: "*", agent })
      mcpSettings(toolbelt.config)
    } catch (error) {
      throw new UsageError((error as Error).message)
    }
    warnStartUp(toolbelt, io)
    sayTrust(toolbelt.trust, io, { command: "mcp", leftOut: true })
    // "web" asks wait for the page of `toolbelt serve`, which this process does not serve.
    const ask = mcpSettings(toolbelt.config).ask === "web" ? "reject" : undefined
    if (ask) {
      io.stderr.write(
        'toolbelt mcp: "mcp.ask" is "web", answered in the page of "toolbelt serve"; this server has no page, so asks a client cannot show are rejected.\n',
      )
    }

    await serveUntilStopped(async () => {
      // A person who typed `toolbelt mcp` sees a silent, waiting process: say what it is for. A client
      // starts it with pipes, so it never sees this; stdout stays the protocol's either way.
      if (!http && isTerminal(io, "stdin")) io.stderr.write(BY_HAND_NOTE)
      if (!http) {
        const warm = new AbortController()
        let warming = Promise.resolve()
        const served = serveMcpStdio({
          toolbelt,
          agent,
          ...(ask ? { ask } : {}),
          stdin: io.stdin as never,
          stdout: io.stdout as never,
          onStarted: () => {
            // Once the first answers are out (a helper process is started for it): the socket a client
            // gave as stdout made to hold more than four pages of a read, so answers flow while the
            // server works (stdout-socket.ts).
            setTimeout(() => void widenStdoutSocket(), WIDEN_DELAY_MS).unref()
            if (!values["no-warm-up"])
              warming = warmUpSoon(warm.signal, () => internals(toolbelt).store.db.expectLoad())
          },
        })
        // The connection's end stops the warm-up; the command ends once it cleaned up.
        return {
          closed: served.closed,
          async close() {
            warm.abort()
            await served.close()
            await warming
          },
        }
      }
      // Loaded for --http only: a stdio server starts without Hono and the HTTP transport.
      const served = await import("../../mcp-server/http.ts")
      let server: Awaited<ReturnType<typeof serveMcpHttp>>
      try {
        server = await served.serveMcpHttp({
          toolbelt,
          agent,
          ...(ask ? { ask } : {}),
          ...(bind.socket === undefined
            ? { port, ...(values.host ? { host: values.host } : {}) }
            : { socket: bind.socket }),
          ...(bind.token === undefined ? {} : { token: bind.token }),
          ...Object.fromEntries(Object.entries(limits).filter(([, value]) => value !== undefined)),
        })
      } catch (error) {
        if (error instanceof served.HttpServeError) throw new UsageError(error.message)
        throw error
      }
      io.stderr.write(
        [
          `toolbelt mcp: serving ${toolbelt.directory} at ${server.url}`,
          ...(server.socket ? [`  socket  ${server.socket} (${SOCKET_NOTE})`] : []),
          ...(server.token && bind.token === undefined
            ? [
                `  token   ${server.token} (made up for this run: clients send "Authorization: Bearer <token>"; pass --token to choose one)`,
              ]
            : []),
          "",
        ].join("\n"),
      )
      if (bind.token === false && bind.socket === undefined) io.stderr.write(noTokenWarning("mcp"))
      return server
    })
    return EXIT.ok
  } finally {
    // Awaited: the store closes last, committing the records that trail the replies (a read answered
    // moments before the client left); the process exits once this returns.
    await toolbelt.close().catch((error: unknown) => {
      io.stderr.write(`toolbelt mcp: warning: closing the store failed: ${(error as Error).message}\n`)
    })
    restoreConsole()
  }
}

/** A flag that must be a whole number above 0, or absent. */
function countFlag(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined
  const number = Number(value)
  if (!Number.isSafeInteger(number) || number <= 0) {
    throw new UsageError(`${flag} needs a whole number above 0, not "${value}".`)
  }
  return number
}

/** Sends console.log/info/debug to stderr; returns how to undo it. */
function consoleToStderr(): () => void {
  const { log, info, debug } = console
  console.log = console.info = console.debug = (...args: unknown[]) => console.error(...args)
  return () => {
    console.log = log
    console.info = info
    console.debug = debug
  }
}
