import { spawn } from "node:child_process"
import { internals } from "../../../compose/internals.ts"
import { createToolbelt } from "../../../compose/toolbelt.ts"
import { saveCodeCache } from "../../../platform/util/code-cache.ts"
import { mcpSettings } from "../../../runtime/config/mcp-settings.ts"
import type { ServeOptions } from "../../http/server.ts"
import { unknownAgentIsUsage } from "../ceiling.ts"
import { type Command, parseCommandLine } from "../command-line.ts"
import { EXIT, type IO, UsageError } from "../io.ts"
import { listenFlags, noTokenWarning, SOCKET_NOTE } from "../listen-flags.ts"
import { projectDirectory } from "../project-dir.ts"
import { checkAgent, warnStartUp } from "../start-up.ts"
import { onStopSignal, serveUntilStopped } from "../stop-signal.ts"
import { storeHelp, storeOption } from "../store-flag.ts"
import { sayTrust } from "../trust-gate.ts"

const DEFAULT_PORT = 4517

export const SERVE_HELP = `Usage: toolbelt serve [options]

Serves the project's toolbelt over HTTP, in one process: a web page that shows every tool call live
and answers the permission asks the policy leaves open, the JSON API it uses (described at
/openapi.json), the event stream (/events, Server-Sent Events), and MCP at /mcp (streamable HTTP, the
same server as "toolbelt mcp --http"): calls from MCP clients show up in the page, and the asks of
clients that cannot show them wait for it (config "mcp.ask": "web", the default here).

Options:
  --cwd DIR          the project directory (default: the current directory)
  --agent NAME       the agent whose permissions apply (default: build); also a ceiling: a call that
                     names another agent is held to NAME's rules too
  --port N           the port (default: ${DEFAULT_PORT}; 0 picks a free one)
  --host HOST        the address to bind (default: 127.0.0.1)
  --token TOKEN      requests must carry "Authorization: Bearer TOKEN", or the page's cookie, which the
                     one-time login link printed at start sets (default: $TOOLBELT_SERVE_TOKEN, else one
                     is made up and printed: every account on this machine reaches a loopback port)
  --socket PATH      listen on a Unix socket instead of a port, created with mode 0600: only this account
                     can connect, so no token is needed (e.g. curl --unix-socket PATH http://localhost/api/info)
  --no-token         no token on a loopback port: any local account can then run tools as you (warned at
                     every start; --socket is the safe way to go without one)
  --model PROVIDER/ID  the model agent turns use (POST /api/sessions/ID/turns; default: $TOOLBELT_MODEL)
  --base-url URL     the server for --model openai-compatible/... (default: $TOOLBELT_BASE_URL)
  --open             open the page in the browser; when none can be opened (no display, no opener),
                     says so and prints the page's URL to open
  --no-warm-up       start at once, without first running the call path on a throwaway toolbelt (about
                     a second, so the first calls are not served by unoptimised code)
  --trust            apply what the project brings (tool files, plugins, MCP servers, ...) without it
                     being trusted, for this run (TOOLBELT_TRUST=1 does the same); said on stderr
${storeHelp(21)}  -h, --help         show this help

Security: loopback only unless --host says otherwise; a token on every port; Host, Origin and
Sec-Fetch-Site are checked on every request, /mcp included (DNS rebinding, other sites' pages, other
local web apps); request bodies are bounded ("mcp.max_request_bytes").
`

/** The command line `serve` takes. */
const SERVE_LINE = {
  help: SERVE_HELP,
  shared: ["cwd", "agent", "trust", "store"],
  positionals: false,
  flags: {
    port: { type: "string" },
    host: { type: "string" },
    token: { type: "string" },
    socket: { type: "string" },
    "no-token": { type: "boolean" },
    model: { type: "string", short: "m" },
    "base-url": { type: "string" },
    open: { type: "boolean" },
    "no-warm-up": { type: "boolean" },
  },
} as const

export const command: Command = { run: serveCommand, help: SERVE_HELP }

/**
 * `toolbelt serve`.
 * 1. Check the flags: the port or the socket, the token, the store, and the model (resolved only
 *    when one is named).
 * 2. Open the project's toolbelt (asks wait for a reply: the page gives it).
 * 3. Warm the call path on a throwaway toolbelt (serve-warm-up.ts) unless --no-warm-up, then start the
 *    server and print where it is: the page (with its one-time login link when a token
 *    is needed), the API, MCP, the store (its password never shown), the token it made up; warn about
 *    `--no-token` at every start.
 * 4. Serve until SIGINT or SIGTERM, then close the server and the toolbelt.
 */
export async function serveCommand(argv: string[], io: IO): Promise<number> {
  const line = parseCommandLine({ argv, io, ...SERVE_LINE })
  if (!line) return EXIT.ok
  const { values } = line

  // 1. Flags.
  const port = values.port === undefined ? DEFAULT_PORT : Number(values.port)
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`--port needs a port number from 0 to 65535, not "${values.port}".`)
  }
  const bind = listenFlags(values, io.env.TOOLBELT_SERVE_TOKEN, "serve")
  const store = storeOption(values.store)
  if (bind.socket !== undefined && values.open) {
    throw new UsageError("--open needs a port: a browser cannot open a page on a Unix socket.")
  }
  const model = await loadModel(values.model ?? (io.env.TOOLBELT_MODEL || undefined), values["base-url"], io)

  // 2. The toolbelt.
  // --agent is a ceiling: an API call naming a more permissive agent is held to its rules too.
  const toolbelt = await createToolbelt({
    directory: projectDirectory(values.cwd, io.cwd),
    env: io.env,
    ...store,
    ...(values.trust ? { trust: true } : {}),
    ...(values.agent === undefined ? {} : { ceiling: values.agent }),
  }).catch(unknownAgentIsUsage)
  const agent = values.agent ?? "build"
  try {
    checkAgent(toolbelt, agent)
    try {
      mcpSettings(toolbelt.config)
    } catch (error) {
      throw new UsageError((error as Error).message)
    }
    warnStartUp(toolbelt, io)
    sayTrust(toolbelt.trust, io, { command: "serve", leftOut: true })

    // 3. The server.
    // What the store would start under load (its checkpointer thread) starts now, while nothing waits:
    // left to the load, it fell in the first second and queued the first calls behind it.
    internals(toolbelt).store.db.expectLoad()
    // After the toolbelt: what a process keeps once (the temp-file list's data dir) is the real one's.
    if (!values["no-warm-up"]) {
      const { warmUp } = await import("../serve-warm-up.ts")
      // Stopped meanwhile: the warm-up ends and cleans up, and the server is not started.
      const stopped = new AbortController()
      const stopListening = onStopSignal(() => stopped.abort())
      try {
        await warmUp({ signal: stopped.signal })
      } finally {
        stopListening()
      }
      if (stopped.signal.aborted) return EXIT.ok
      // The warm-up compiled the call path: its code cache is written now, not once the load has begun.
      saveCodeCache()
    }
    const http = await import("../../http/server.ts")
    const options: ServeOptions = {
      toolbelt,
      ...(bind.socket === undefined
        ? { port, ...(values.host ? { host: values.host } : {}) }
        : { socket: bind.socket }),
      agent,
      ...(bind.token === undefined ? {} : { token: bind.token }),
      ...(model ? { model } : {}),
    }
    let server: Awaited<ReturnType<typeof http.serveHttp>>
    try {
      server = await http.serveHttp(options)
    } catch (error) {
      if (error instanceof http.ServeError) throw new UsageError(error.message, { help: false })
      throw error
    }
    // 4. Until stopped (signals are listened for once the server is up).
    await serveUntilStopped(async () => {
      io.stderr.write(
        [
          `toolbelt serve: ${toolbelt.directory}`,
          ...(server.socket ? [`  socket  ${server.socket} (${SOCKET_NOTE})`] : []),
          `  page    ${server.pageURL}`,
          `  API     ${server.url}/api (described at ${server.url}/openapi.json), events at ${server.url}/events`,
          `  MCP     ${server.url}/mcp`,
          // The store's path is the SQLite file, or the PostgreSQL URL with its password replaced.
          `  store   ${internals(toolbelt).store.path}`,
          ...(server.token && bind.token === undefined
            ? [`  token   ${server.token} (made up for this run: pass --token to choose one)`]
            : []),
          ...(model ? [`  model   ${model.spec}`] : []),
          "",
        ].join("\n"),
      )
      if (bind.token === false && bind.socket === undefined) io.stderr.write(noTokenWarning("serve"))
      if (values.open) openBrowser(server.pageURL, io)
      return server
    })
    return EXIT.ok
  } finally {
    await toolbelt.close()
  }
}

/** The model of `--model`, with its spec; its SDK is loaded only when one is named. */
async function loadModel(spec: string | undefined, baseURL: string | undefined, io: IO) {
  if (!spec) {
    if (baseURL) throw new UsageError("--base-url goes with --model (e.g. --model openai-compatible/qwen3).")
    return undefined
  }
  const { ModelSpecError, resolveModel } = await import("../../../adapters/ai/provider.ts")
  try {
    return { ...resolveModel({ spec, env: io.env, ...(baseURL ? { baseURL } : {}) }), spec }
  } catch (error) {
    if (error instanceof ModelSpecError) throw new UsageError(error.message, { help: false })
    throw error
  }
}

/**
 * Opens the page with the system's opener; when none can, says so on stderr with the URL to open, and
 * the server goes on.
 * 1. On Linux and the BSDs without a display (DISPLAY, WAYLAND_DISPLAY) or $BROWSER, nothing is tried:
 *    xdg-open would fall back to a text browser that has no terminal here.
 * 2. Otherwise the opener is started; it failing to start or exiting with an error status is said.
 */
function openBrowser(url: string, io: IO): void {
  const say = (why: string) =>
    io.stderr.write(`toolbelt serve: no browser could be opened (${why}). Open the page yourself: ${url}\n`)
  const desktop = process.platform === "darwin" || process.platform === "win32"
  if (!desktop && !io.env.DISPLAY && !io.env.WAYLAND_DISPLAY && !io.env.BROWSER) {
    say("no display: DISPLAY, WAYLAND_DISPLAY and BROWSER are unset")
    return
  }
  const [command, ...args] =
    process.platform === "darwin"
      ? ["open", url]
      : process.platform === "win32"
        ? ["cmd", "/c", "start", "", url]
        : ["xdg-open", url]
  try {
    const child = spawn(command!, args, { stdio: "ignore", detached: true, env: io.env })
    child.on("error", (error) => say(`${command} did not start: ${error.message}`))
    child.on("exit", (code, signal) => {
      if (code !== 0 && code !== null) say(`${command} exited with status ${code}`)
      else if (signal) say(`${command} was stopped by ${signal}`)
    })
    child.unref()
  } catch (error) {
    say(`${command} did not start: ${(error as Error).message}`)
  }
}
