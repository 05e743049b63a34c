// The MCP server of one connection: toolbelt's advertised tools, mapped onto an SDK McpServer.
import { readFileSync } from "node:fs"
import {
  fromJsonSchema,
  type JsonSchemaValidator,
  type jsonSchemaValidator,
  McpServer,
  type RegisteredTool,
  type ServerContext,
  type Tool as ToolDefinition,
} from "@modelcontextprotocol/server"
import { listingFor } from "../../adapters/ai/tool-search.ts"
import { internals } from "../../compose/internals.ts"
import type { Toolbelt } from "../../compose/toolbelt.ts"
import { logger } from "../../platform/util/log.ts"
import { type AskFallback, mcpSettings } from "../../runtime/config/mcp-settings.ts"
import { DEFAULT_AGENT } from "../../runtime/permission/agents/agent.ts"
import type { Advertised, Turn } from "../../runtime/registry/registry.ts"
import { CallGate, callLimitsOf, type SessionCalls } from "./call-gate.ts"
import { showsForms } from "./client-forms.ts"
import { serverInstructions } from "./instructions.ts"
import { definitionOf, outputSchemaOf, toolAnnotations } from "./listing.ts"
import { PROTOCOL_VERSIONS } from "./protocol-versions.ts"
import { clientModel, samples } from "./sampling.ts"
import { McpSession } from "./session.ts"
import type { DirectTool } from "./stdio-direct-calls.ts"

const log = logger("mcp")

/** How long a call waits for the client's answer to a permission ask (a person is deciding). */
export const DEFAULT_ANSWER_TIMEOUT_MS = 10 * 60_000

/** The client name toolbelt's tools are advertised for (tools may declare where they are offered). */
export const MCP_CLIENT = "mcp"

export interface CreateMcpServerOptions {
  /** The toolbelt session of this connection: its read ledger, todos and approvals. */
  readonly session: string
  /** The agent whose permissions apply (default: `build`). */
  readonly agent?: string
  /** What an ask becomes when the client cannot show it (default: `mcp.ask` of the config, else `reject`). */
  readonly ask?: AskFallback
  /** How long a call waits for the client's answer to an ask (default: 10 minutes). */
  readonly answerTimeoutMs?: number
  /** The revision the connection negotiated (from `trackProtocolVersion` on its transport). */
  readonly protocolVersion?: () => string | undefined
  /**
   * The places this connection's calls take, from the server's `CallGate` (default: a gate of its
   * own, with the `mcp` settings' limits).
   */
  readonly calls?: SessionCalls
}

/** The SDK server of one connection, and its toolbelt session. */
export interface ToolbeltMcpServer {
  readonly server: McpServer
  readonly session: McpSession
  /** A tool a well-formed call may run without the SDK's dispatch (`DirectCalls`), if that one may. */
  readonly direct: (name: string) => DirectTool | undefined
}

/**
 * Validation is toolbelt's own (settlement decodes the input and answers with the model-readable
 * message), so the SDK passes every argument object through as it came.
 */
const passThrough: jsonSchemaValidator = {
  getValidator<T>(): JsonSchemaValidator<T> {
    return (input) => ({ valid: true, data: input as T, errorMessage: undefined })
  },
}

/**
 * Maps a toolbelt onto an MCP server for one connection.
 * 1. An SDK `McpServer` (tools with `listChanged`; `tools/list_changed` debounced), whose resources
 *    and prompts are empty lists.
 * 2. Every tool the agent may see (`toolbelt.tools({agent, client: "mcp", sessionID, listing: "callable"})`)
 *    is registered with its description, its JSON Schema as it is, its hints and its output schema.
 *    Tools the policy hides, and tools never offered (`invalid`), are not registered and cannot be
 *    called. They are the tools of the agent the session runs as (plan mode switches it). Tools that
 *    need someone to answer (question, plan_exit) are listed only while the client shows forms (known
 *    at `initialize`); tools that need a model (task) only when the client samples, whose model they use.
 * 3. `tools/list` lists the registered tools that are not deferred, and the deferred ones loaded into
 *    this session (by `tool_search`, or by a call). A deferred tool is registered all the same, so a
 *    client that calls it by the name a search gave (without listing again) reaches it; the call loads it.
 * 4. A call runs in the connection's session (`McpSession`): one pipeline with every other surface.
 * 5. When the registry changes, or a call switched the session's agent, the registrations follow; the
 *    SDK tells the client (`list_changed`). A load into this session tells it too.
 * 6. When the connection closes, the session's calls are aborted and its session approvals dropped.
 */
export async function createMcpServer(
  toolbelt: Toolbelt,
  options: CreateMcpServerOptions,
): Promise<ToolbeltMcpServer> {
  const agent = options.agent ?? DEFAULT_AGENT
  const answerTimeoutMs = options.answerTimeoutMs ?? DEFAULT_ANSWER_TIMEOUT_MS
  const server = new McpServer(
    { name: "toolbelt", title: "toolbelt", version: packageVersion() },
    {
      capabilities: {
        tools: { listChanged: true },
        // No resources and no prompts, said as empty lists rather than -32601: clients in use
        // (opencode, Cline, Cursor) list both on connect whatever the capabilities say, and some drop a
        // server whose answer is "Method not found". Reading one answers not found; the lists never change.
        resources: { listChanged: false },
        prompts: { listChanged: false },
      },
      instructions: serverInstructions(toolbelt),
      debouncedNotificationMethods: ["notifications/tools/list_changed"],
      supportedProtocolVersions: [...PROTOCOL_VERSIONS],
    },
  )
  const settings = mcpSettings(toolbelt.config)
  const ask = options.ask ?? settings.ask
  // The client's model, for subagents: offered in the listing and on each call while the client samples.
  const model = clientModel(server.server, { timeoutMs: answerTimeoutMs })
  const sampling = () => samples(server.server.getClientCapabilities())
  const session = new McpSession({
    toolbelt,
    sessionID: options.session,
    agent,
    ask,
    answerTimeoutMs,
    clientCapabilities: () => server.server.getClientCapabilities(),
    protocolVersion: options.protocolVersion ?? (() => undefined),
    model: () => (sampling() ? model : undefined),
    calls: options.calls ?? new CallGate(callLimitsOf(settings)).forSession(),
    // A call switched the session's agent (plan mode): its tools are listed before the result goes back.
    // Read again only when this process set an agent since the call started: a switch made by another
    // process is seen by the next call's own read, so one read per call suffices.
    settled: async (started) => {
      const agents = internals(toolbelt).store.sessionAgents
      const now = agents.changes === started.changes ? started.agent : agentNow()
      if (now !== listedAgent) await resync()
    },
  })
  // The agent the session runs as: the connection's, until a call switches it (plan mode).
  const agentNow = () => internals(toolbelt).store.sessionAgents.get(options.session) ?? agent
  let listedAgent = agentNow()

  // 2. The registrations: every tool the agent may see, deferred ones included.
  const registered = new Map<
    string,
    {
      tool: RegisteredTool
      fingerprint: string
      definition: ToolDefinition
      call: DirectTool
      structured: boolean
    }
  >()
  let turn: Turn = new Map()
  // The names listed up front (not deferred); the deferred ones are listed once the session loads them.
  let upFront = new Set<string>()
  const search = internals(toolbelt).toolSearch
  const listedNow = (name: string) => upFront.has(name) || search.loaded(options.session).has(name)
  const register = (advertised: Advertised, outputSchema: Record<string, unknown> | undefined) => {
    const name = advertised.name
    const structured = outputSchema !== undefined
    // 4. A call. A deferred tool called by name is loaded first: listed for the session from now on.
    const call = (args: unknown, ctx: ServerContext) => {
      if (!listedNow(name)) search.load(options.session, [name])
      return session.call({ tool: name, args, turn, structured }, ctx)
    }
    const tool = server.registerTool(
      name,
      {
        description: advertised.description,
        inputSchema: fromJsonSchema(advertised.inputSchema as never, passThrough),
        ...(outputSchema ? { outputSchema: fromJsonSchema(outputSchema as never, passThrough) } : {}),
        annotations: toolAnnotations(advertised.annotations),
      },
      call,
    )
    return { tool, call, structured }
  }
  // The tools listed only while the client shows forms: those offered to a person, not to nobody.
  let needsPerson = new Set<string>()
  // The tools listed only while the client samples: those offered where a model runs the turn.
  let needsModel = new Set<string>()
  const sync = async () => {
    const asAgent = agentNow()
    const base = {
      agent: asAgent,
      client: MCP_CLIENT,
      sessionID: options.session,
      listing: listingFor(internals(toolbelt).registry),
    }
    const query = { ...base, extra: { model } }
    const [tools, unattended, modelless] = await Promise.all([
      toolbelt.tools({ ...query, interactive: true }),
      toolbelt.tools({ ...query, interactive: false }),
      toolbelt.tools({ ...base, interactive: true }),
    ])
    upFront = new Set(tools.filter((tool) => tool.deferred !== true).map((tool) => tool.name))
    const offeredToNobody = new Set(unattended.map((tool) => tool.name))
    needsPerson = new Set(tools.map((tool) => tool.name).filter((name) => !offeredToNobody.has(name)))
    const offeredWithout = new Set(modelless.map((tool) => tool.name))
    needsModel = new Set(tools.map((tool) => tool.name).filter((name) => !offeredWithout.has(name)))
    const listed = new Set<string>()
    for (const advertised of tools) {
      listed.add(advertised.name)
      const outputSchema = outputSchemaOf(advertised.entry)
      const fingerprint = JSON.stringify([
        advertised.description,
        advertised.inputSchema,
        advertised.annotations,
        outputSchema,
      ])
      const current = registered.get(advertised.name)
      if (current?.fingerprint === fingerprint) continue
      current?.tool.remove()
      registered.set(advertised.name, {
        ...register(advertised, outputSchema),
        fingerprint,
        definition: definitionOf(advertised, outputSchema),
      })
    }
    for (const [name, current] of registered) {
      if (listed.has(name)) continue
      current.tool.remove()
      registered.delete(name)
    }
    turn = new Map(tools.map((tool) => [tool.name, tool.entry.identity]))
    listedAgent = asAgent
    followForms()
  }
  // Before `initialize` (and on 2026-07-28 connections, which declare capabilities per request) it is
  // not known whether the client shows forms: the tools stay listed, and a call says so if it cannot.
  // Set without a `list_changed`: the client has listed nothing at `initialized`, and a registration
  // in a sync after it sends its own.
  const followForms = () => {
    const forms = showsForms(server.server.getClientCapabilities())
    // With "web" asks, the page of `toolbelt serve` is the person who answers.
    const answered = forms !== false || ask === "web"
    // Tools that need a model wait until the client is known to sample.
    const sampled = sampling()
    for (const [name, { tool }] of registered)
      tool.enabled = (answered || !needsPerson.has(name)) && (sampled || !needsModel.has(name))
  }
  server.server.oninitialized = followForms
  // 3. The listing, in place of the SDK's (which lists every registration): the enabled tools, less the
  //    deferred ones this session has not loaded, defined as the SDK would list them.
  server.server.setRequestHandler("tools/list", () => ({
    tools: [...registered]
      .filter(([name, { tool }]) => tool.enabled && listedNow(name))
      .map(([, { definition }]) => definition),
  }))
  await sync()

  // 5. Registry changes, one sync at a time (a burst of changes costs one more sync at most).
  let syncing = false
  let dirty = false
  const resync = async () => {
    dirty = true
    if (syncing) return
    syncing = true
    try {
      while (dirty) {
        dirty = false
        await sync()
      }
    } catch (error) {
      log.error("could not update the MCP tool list", { error: String(error) })
    } finally {
      syncing = false
    }
  }
  const offChange = internals(toolbelt).registry.onChange(() => void resync())
  // Deferred tools loaded into this session (a search found them, a call named them) are listed now.
  const offLoad = search.onLoad((sessionID, names) => {
    if (sessionID !== options.session) return
    if (names.some((name) => registered.has(name) && !upFront.has(name))) server.sendToolListChanged()
  })

  // 6. The end of the connection.
  server.server.onclose = () => {
    offChange()
    offLoad()
    session.close()
  }
  // The tools a call may reach without the SDK's dispatch: enabled, and answering without structured output.
  const direct = (name: string) => {
    const current = registered.get(name)
    return current?.tool.enabled && !current.structured ? current.call : undefined
  }
  return { server, session, direct }
}

let version: string | undefined

function packageVersion(): string {
  version ??= (
    JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { version: string }
  ).version
  return version
}
