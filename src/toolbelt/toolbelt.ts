import { realpathSync } from "node:fs"
import { resolve } from "node:path"
import { DEFAULT_AGENT } from "../agent/agent.ts"
import { loadPolicy, type Policy } from "../agent/policy.ts"
import { Bus } from "../bus/bus.ts"
import type { PermissionAsked } from "../bus/events.ts"
import { type Config, loadConfig } from "../config/config.ts"
import { type CrashRecovery, recoverCrashedWrites } from "../fs/crash-recovery.ts"
import { configureFileLocks } from "../fs/lock.ts"
import { Hooks } from "../hooks/hooks.ts"
import type { McpServers } from "../mcp/client/index.ts"
import { defaultDataDir, outputDir } from "../output/data-dir.ts"
import { type Limits, resolveLimits } from "../output/limits.ts"
import { OutputStore } from "../output/store.ts"
import { PermissionEngine } from "../permission/engine.ts"
import { disabled } from "../permission/ruleset.ts"
import type { AskRequest } from "../permission/service.ts"
import type { Decide } from "../permission/simple.ts"
import { installCustomTools } from "../plugins/custom-tools.ts"
import { installPlugins, type PluginLoadError } from "../plugins/load.ts"
import { type Advertised, Registry, type ToolsQuery } from "../registry/registry.ts"
import type { Handle } from "../registry/tool-set.ts"
import { answerOf, DoomLoopGuard } from "../session/doom-loop.ts"
import type { ToolPart } from "../session/part.ts"
import { withInterruptedCalls } from "../settle/interrupted-calls.ts"
import { type CallRequest, type PartSink, type Settlement, settle } from "../settle/settle.ts"
import { killSessionJobs } from "../shell/jobs/index.ts"
import type { Recovery } from "../store/journal.ts"
import { openStore, type Store } from "../store/store.ts"
import { builtins } from "../tools/index.ts"
import type { ServiceExtra } from "../tools/services.ts"
import { ascending } from "../util/id.ts"
import { logger } from "../util/log.ts"
import { findWorktree } from "./worktree.ts"

const log = logger("toolbelt")

export interface ToolbeltOptions {
  /** The project directory (default: the current directory). */
  readonly directory?: string
  /** Where the store and the output store live (default: DESIGN.md's data dir). */
  readonly dataDir?: string
  /** Config to use instead of reading `toolbelt.json(c)` files (permission rules included). */
  readonly config?: Config
  /** The store: an open one, `"memory"` for a throwaway one, or (default) the data dir's file. */
  readonly store?: Store | "memory"
  /** Answers asks the rules leave open (a TTY prompt, `--yes`); without it they wait for `reply`. */
  readonly decide?: Decide
  /** Register the built-in tools (default true). */
  readonly builtins?: boolean
  /** Load tool files from `.toolbelt/tools/`, `.opencode/tools/` and the config dirs (default true). */
  readonly customTools?: boolean
  /** Also receives every tool part state. */
  readonly parts?: PartSink
  /** Connect the MCP servers listed under `mcp` in config (default true). */
  readonly mcp?: boolean
  /** Sweep the output store hourly (default true). */
  readonly sweep?: boolean
  readonly env?: NodeJS.ProcessEnv
}

/** A call as a library user makes it: the ids default to fresh ones, the agent to `build`. */
export type CallInput = Omit<CallRequest, "sessionID" | "messageID" | "agent" | "callID"> &
  Partial<Pick<CallRequest, "sessionID" | "messageID" | "agent" | "callID">>

export interface Toolbelt {
  readonly directory: string
  readonly worktree: string
  readonly dataDir: string
  readonly config: Config
  readonly registry: Registry
  readonly permission: PermissionEngine
  /** The permission policy: every agent's rules and the config files (and variable) they came from. */
  readonly policy: Policy
  readonly bus: Bus
  readonly hooks: Hooks
  readonly store: Store
  readonly output: OutputStore
  readonly limits: Limits
  /** What start-up recovery closed as interrupted, and the asks a crashed process left waiting. */
  readonly recovered: Recovery
  /** Multi-file changes a crash interrupted, rolled back at start (each also a `file.recovered` event), and temp files of killed writes removed. */
  readonly crashRecovery: CrashRecovery
  /** Plugins and custom tool files that failed to load (which one, why); the rest loaded. */
  readonly pluginErrors: readonly PluginLoadError[]
  /** The MCP servers from config and their state (connected, failed, disabled). */
  readonly mcp: McpServers | undefined
  /** The tools an agent may see: registered, available, not hidden by its permission rules. */
  tools(query?: ToolsQuery): Promise<Advertised[]>
  call(input: CallInput): Promise<Settlement>
  /**
   * A session's connection ended (an MCP client left): its background jobs are killed, and what this
   * process holds for it (session-only approvals, loop history) is let go. The store keeps its record.
   */
  endSession(sessionID: string): Promise<void>
  /** Stops everything: pending asks are rejected, MCP servers closed, the store closed (if it is ours). */
  close(): Promise<void>
  [Symbol.asyncDispose](): Promise<void>
}

/**
 * Puts the runtime together for one project.
 * 1. Config (files or given), the worktree, the data dir and the store; start-up recovery closes
 *    calls a crashed process left open, rolls back multi-file changes a crash cut short and removes
 *    the temp files of killed writes.
 * 2. The bus, the hooks, the permission engine (agent rules from config, approvals saved in the store),
 *    the doom-loop guard.
 * 3. The registry: built-ins, then plugins (their tools and hooks).
 * 4. `call` settles one call with the journal recording every step and the bus publishing it.
 */
export async function createToolbelt(options: ToolbeltOptions = {}): Promise<Toolbelt> {
  const env = options.env ?? process.env
  const directory = realpathSync(resolve(options.directory ?? process.cwd()))
  const worktree = findWorktree(directory)
  const config = options.config ?? (await loadConfig(directory, env)).config
  const dataDir = options.dataDir ?? defaultDataDir(env)
  const store =
    options.store === "memory" ? openStore({ path: ":memory:" }) : (options.store ?? openStore({ dataDir }))
  const recovered = store.journal.recover()
  const crash = await recoverCrashedWrites({ dataDir, project: directory })
  const output = new OutputStore({ dir: outputDir(dataDir) })
  const limits = resolveLimits(config.tool_output)
  const bus = new Bus()
  // Published after start-up returns, so a subscriber attached right after `createToolbelt` sees them.
  setImmediate(() =>
    crash.report.rolledBack.map((change) => bus.publish("file.recovered", { directory, change })),
  )
  const hooks = new Hooks()

  const policy = await loadPolicy({ directory, dataDir, env, ...(options.config ? { config } : {}) })
  const rulesOf = policy.rulesOf
  const permission = new PermissionEngine({
    projectID: directory,
    rules: rulesOf,
    approvals: store.approvals,
    publish: bus.publish,
    consult: async (request) => (await hooks.decidePermission(request)).status,
  })
  const journalAsks = bus.subscribe("permission.asked", (event) => store.journal.asked(event.properties))
  const journalReplies = bus.subscribe("permission.replied", async (event) => {
    await store.journal.decided(event.properties.requestID, event.properties.reply)
  })
  const answering = options.decide ? answerAsks(bus, permission, options.decide) : undefined

  const doomLoop = new DoomLoopGuard(config.doom_loop as { threshold?: number } | undefined)
  const registry = new Registry()
  const handles: Handle[] = []
  if (options.builtins !== false) handles.push(registry.register(builtins(), { source: "builtin" }))
  // opencode's order: built-ins, then tool files, then plugins; a later registration of a name wins.
  const custom =
    options.customTools === false
      ? { handles: [], errors: [] }
      : await installCustomTools({ directory, worktree, registry, env })
  handles.push(...custom.handles)
  const plugins = await installPlugins(config.plugin ?? [], { directory, worktree, registry, hooks })
  handles.push(...plugins.handles)
  const mcp =
    options.mcp === false || !config.mcp
      ? undefined
      : // Loaded only when servers are configured: the MCP SDK is not cheap to import.
        await (await import("../mcp/client/index.ts")).connectMcpServers({
          config: config.mcp,
          registry,
          store,
          directory,
          env,
          log,
        })
  const sweeper = options.sweep === false ? undefined : output.startSweeper()

  const record = journalSink(store, bus, options.parts)
  // A part already in the journal (closed by recovery): published only, never recorded again.
  const announce = (part: ToolPart) => {
    bus.publish("message.part.updated", { part })
    void Promise.resolve()
      .then(() => options.parts?.(part))
      .catch(() => {})
  }
  const seeded = new Set<string>()
  // How long a writer waits for another process's lock on a file (process-wide, like the lock itself).
  const lockWait = (config.file as { lock_wait_ms?: unknown } | undefined)?.lock_wait_ms
  if (typeof lockWait === "number" && lockWait >= 0) configureFileLocks({ waitMs: lockWait })
  const extra: ServiceExtra = {
    directory,
    worktree,
    readLedger: store.readLedger,
    // Kept with the session in the store: an instruction file is attached once per session, in any process.
    firstTime: (sessionID, key) => store.seen.firstTime(sessionID, key),
    requireRead: (config.file as { require_read?: boolean } | undefined)?.require_read ?? true,
    publish: bus.publish,
    hooks,
    recovery: crash.log,
  }
  // What the shell tool reads: its config section, the output limits, where to spool output.
  const shellExtra = { shell: config.shell, limits, outputDir: output.dir, dataDir }
  const sessions = new Set<string>()
  // The tool this agent reads files page by page with (read, unless replaced or denied): hints name it.
  const pagerFor = (agent: string) =>
    registry.pager({ agent }, (permission) => disabled([permission], rulesOf(agent)).size === 0)

  let closed: Promise<void> | undefined
  const close = () => {
    closed ??= shutdown()
    return closed
  }
  const shutdown = async () => {
    sweeper?.stop()
    answering?.()
    // Background jobs belong to their session; the sessions of this runtime end with it.
    for (const session of sessions) killSessionJobs(session)
    journalAsks()
    journalReplies()
    permission.dispose()
    for (const handle of handles.splice(0)) handle.close()
    await mcp?.close()
    if (options.store === undefined || options.store === "memory") store.close()
  }

  return {
    directory,
    worktree,
    dataDir,
    config,
    registry,
    permission,
    policy,
    bus,
    hooks,
    store,
    output,
    limits,
    recovered,
    crashRecovery: crash.report,
    mcp,
    pluginErrors: [
      ...custom.errors.map((failure) => ({ spec: failure.file, error: failure.error })),
      ...plugins.errors,
    ],
    async tools(query = {}) {
      const agent = query.agent ?? DEFAULT_AGENT
      const advertised = await registry.tools({ ...query, agent })
      // Hidden with the permission it belongs to: bash_output and bash_kill go when bash is denied.
      const hidden = disabled(
        advertised.map((tool) => tool.permission),
        rulesOf(agent),
      )
      const visible = advertised.filter((tool) => !hidden.has(tool.permission))
      if (!hooks.has("tool.definition")) return visible
      return Promise.all(
        visible.map(async (tool) => {
          const rewritten = await hooks.rewriteDefinition(
            { toolID: tool.name },
            { description: tool.description, parameters: tool.inputSchema },
          )
          return { ...tool, description: rewritten.description, inputSchema: rewritten.parameters }
        }),
      )
    },
    async call(input) {
      const sessionID = input.sessionID ?? ascending("ses")
      sessions.add(sessionID)
      const agent = input.agent ?? DEFAULT_AGENT
      rulesOf(agent) // an unknown agent fails here, before anything runs
      // Calls of this session that a killed process left open: told once, as events and in the answer.
      const interrupted = store.journal.takeInterrupted(sessionID)
      for (const part of interrupted) announce(part)
      if (!seeded.has(sessionID)) {
        seeded.add(sessionID)
        for (const part of store.parts.list(sessionID)) {
          const answer = answerOf(part.state)
          if (answer !== undefined)
            doomLoop.record(sessionID, { tool: part.tool, input: part.state.input, answer })
        }
      }
      const settlement = await settle(
        {
          ...input,
          sessionID,
          agent,
          messageID: input.messageID ?? ascending("msg"),
          callID: input.callID ?? ascending("call"),
          extra: { ...extra, ...shellExtra, pager: () => pagerFor(agent), ...(input.extra ?? {}) },
        },
        {
          registry,
          permission,
          store: output,
          limits,
          parts: record,
          hooks,
          doomLoop,
          settled: (session, callID) => store.journal.settled(session, callID),
          pager: pagerFor,
          canDelegate: (name) =>
            registry.resolve("task") !== undefined && permission.evaluate("task", "*", name) !== "deny",
          onDefect: (error, part) =>
            log.error(`defect in ${part.tool}`, { callID: part.callID, error: String(error) }),
          onRecordError: (error, part) =>
            log.error(`could not record the ${part.tool} call it answered`, {
              callID: part.callID,
              error: String(error),
            }),
        },
      )
      return withInterruptedCalls(settlement, interrupted)
    },
    async endSession(sessionID) {
      sessions.delete(sessionID)
      seeded.delete(sessionID)
      doomLoop.forget(sessionID)
      permission.forgetSession(sessionID)
      await killSessionJobs(sessionID)
    },
    close,
    [Symbol.asyncDispose]: close,
  }
}

/**
 * Journals every step of a call (requested, started, progress, finished) and publishes it.
 *
 * A step is written to the journal's queue at once and published (bus, then `extra`) once it has
 * committed, in order. The `pending` step alone is not waited for: the call moves on, and its next
 * step (started, or its end) usually joins the same group commit, so a call costs one commit before
 * its tool runs instead of two. Every later step waits for all of its call's earlier steps as well,
 * so `started` still resolves only once the call's record is durable, and a failed `requested`
 * surfaces there. A read-only call waits for none of its steps (settle's `trail()`): requested,
 * started and finished usually share one commit, made just after its result is returned.
 */
function journalSink(store: Store, bus: Bus, extra: PartSink | undefined): PartSink {
  const calls = new Map<string, { running: boolean; durable: Promise<unknown>; published: Promise<void> }>()
  const write = (part: ToolPart, running: boolean): Promise<unknown> => {
    const { status } = part.state
    if (status === "pending") return store.journal.requested(part)
    if (status === "running") return running ? store.journal.progress(part) : store.journal.started(part)
    return store.journal.finished(part)
  }
  // Ordered: every step is queued in the journal's group commit the moment it is handed over.
  const sink = (part: ToolPart) => {
    const call = calls.get(part.id) ?? {
      running: false,
      durable: Promise.resolve(),
      published: Promise.resolve(),
    }
    const step = write(part, call.running)
    if (part.state.status === "running") call.running = true
    call.durable = Promise.all([call.durable, step])
    call.published = Promise.all([call.published, call.durable]).then(() => {
      bus.publish("message.part.updated", { part })
      return extra?.(part)
    })
    const final = part.state.status === "completed" || part.state.status === "error"
    if (final) calls.delete(part.id)
    else calls.set(part.id, call)
    if (part.state.status !== "pending") return call.published
    // Not awaited here: a failure reaches the call's next step through `durable`.
    call.published.catch(() => {})
  }
  return Object.assign(sink, { ordered: true })
}

/** Answers each ask the rules leave open with `decide` (one at a time, in the order they came). */
function answerAsks(bus: Bus, permission: PermissionEngine, decide: Decide): () => void {
  return bus.subscribe("permission.asked", async (event) => {
    const asked = event.properties as PermissionAsked & { agent?: string }
    if (!permission.list().some((request) => request.id === asked.id)) return
    const request: AskRequest = {
      sessionID: asked.sessionID,
      agent: asked.agent ?? DEFAULT_AGENT,
      permission: asked.permission,
      patterns: asked.patterns,
      always: asked.always,
      metadata: asked.metadata,
      ...(asked.tool?.name ? { tool: { ...asked.tool, name: asked.tool.name } } : {}),
    }
    const reply = await decide(request, {})
    if (!permission.list().some((pending) => pending.id === asked.id)) return
    if (typeof reply === "object")
      permission.reply(
        "unanswered" in reply
          ? { requestID: asked.id, reply: "reject", unanswered: reply.unanswered }
          : { requestID: asked.id, reply: "reject", message: reply.reject },
      )
    else permission.reply({ requestID: asked.id, reply })
  })
}
