// The composition root: builds a toolbelt for one project from its config, in named steps.

import type { McpServers } from "../adapters/mcp-client/index.ts"
import { toolFilesNotOffered } from "../adapters/plugins/custom-tools.ts"
import type { PluginLoadError } from "../adapters/plugins/load.ts"
import type { CrashRecovery } from "../platform/fs/crash-recovery.ts"
import type { Recovery } from "../platform/store/journal.ts"
import type { Store } from "../platform/store/store.ts"
import { type Limits, resolveLimits } from "../platform/text/limits.ts"
import { logger } from "../platform/util/log.ts"
import { Bus } from "../runtime/bus/bus.ts"
import type { Config } from "../runtime/config/config.ts"
import type { ProjectTrust } from "../runtime/config/trust/project-trust.ts"
import type { TrustStore } from "../runtime/config/trust/trust-store.ts"
import { Hooks } from "../runtime/hooks/hooks.ts"
import type { OutputStore } from "../runtime/output/store.ts"
import type { Policy } from "../runtime/permission/agents/policy.ts"
import type { PermissionEngine } from "../runtime/permission/engine.ts"
import type { Decide } from "../runtime/permission/simple.ts"
import type { AnswerQuestions } from "../runtime/question/question.ts"
import type { QuestionService } from "../runtime/question/service.ts"
import { type Advertised, Registry, type ToolsQuery } from "../runtime/registry/registry.ts"
import type { PartSink, Settlement } from "../runtime/settle/settle.ts"
import { discoverSkills, type SkillCatalog } from "../runtime/skills/catalog.ts"
import type { ToolSearchControl } from "../runtime/tool-search/control.ts"
import { withheld } from "./advertise.ts"
import { Late } from "./late.ts"
import { checkStoreUrl, openProject } from "./open-project.ts"
import { openRecords } from "./open-records.ts"
import { connectMcp, registerTools } from "./register-tools.ts"
import { type CallInput, sessionCalls } from "./session-calls.ts"
import { SubagentSessions } from "./subagent-sessions.ts"
import { startGuard, type Wiring, wireServices } from "./toolbelt-steps.ts"

export type { CallInput } from "./session-calls.ts"

const log = logger("toolbelt")

export interface ToolbeltOptions {
  /** The project directory (default: the current directory). */
  readonly directory?: string
  /** Where the store and the output store live (default: DESIGN.md's data dir). */
  readonly dataDir?: string
  /** Config to use instead of reading `toolbelt.json(c)` files (permission rules included). */
  readonly config?: Config
  /**
   * The store: an open one, `"memory"` for a throwaway one, a PostgreSQL URL
   * (`"postgres://user:password@host:port/database"`, TLS by `sslmode`; shown everywhere without its
   * password), or (default) the one `TOOLBELT_STORE` or config `"store"` names, else the data dir's
   * SQLite file. The data dir still holds full outputs and crash records.
   */
  readonly store?: Store | "memory" | string
  /** Answers asks the rules leave open (a TTY prompt, `--yes`); without it they wait for `reply`. */
  readonly decide?: Decide
  /** Answers the questions tools ask (a TTY prompt); without it they wait for `questions.reply`. */
  readonly answer?: AnswerQuestions
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
  /**
   * Edits wait (at most 5 s) for the errors language servers report on what they changed, and append
   * them (default true). A one-shot process turns it off: each edit would start a server cold.
   */
  readonly editDiagnostics?: boolean
  readonly env?: NodeJS.ProcessEnv
  /**
   * Trust the project for this instance (`--trust`): its tool files, plugins, MCP servers, language
   * servers and config keys apply. Without it, the person's trust store decides (`toolbelt trust`), or
   * `TOOLBELT_TRUST=1`; a project that contributes nothing that runs or loosens needs no trust.
   */
  readonly trust?: boolean
  /** The per-user trust store (default: the one in the user's config dir, as `env` names it). */
  readonly trustStore?: TrustStore
  /**
   * An agent no call may be more permissive than (`serve --agent X`): its rules hold over every call,
   * whatever agent the call names.
   */
  readonly ceiling?: string
}

export interface Toolbelt {
  readonly directory: string
  readonly worktree: string
  readonly dataDir: string
  readonly config: Config
  /**
   * Whether the project is trusted and why; `leftOut` is what it would run, contact or loosen that this
   * instance did not apply, and `howToTrust` the command that trusts it.
   */
  readonly trust: ProjectTrust
  readonly registry: Registry
  readonly permission: PermissionEngine
  /** The permission policy: every agent's rules and the config files (and variable) they came from. */
  readonly policy: Policy
  /** The questions tools put to a person: `list` the pending ones, `reply` or `reject` them. */
  readonly questions: QuestionService
  readonly bus: Bus
  readonly hooks: Hooks
  readonly store: Store
  readonly output: OutputStore
  readonly limits: Limits
  /** What start-up recovery closed as interrupted, and the asks a crashed process left waiting. */
  readonly recovered: Recovery
  /** Multi-file changes a crash interrupted, rolled back at start (each also a `file.recovered` event), and temp files of killed writes removed. */
  readonly crashRecovery: CrashRecovery
  /** Plugins, custom tool files and skills that failed to load (which one, why); the rest loaded. */
  readonly pluginErrors: readonly PluginLoadError[]
  /** The Agent Skills the project sees (`.toolbelt/skills/`, `.claude/skills/`, ... and the user's). */
  readonly skills: SkillCatalog
  /** The MCP servers from config and their state (connected, failed, disabled). */
  readonly mcp: McpServers | undefined
  /**
   * The tools an agent may see: registered, available, not hidden by its permission rules; with
   * `listing: "listed"` (default) deferred tools are left out but those the session loaded.
   */
  tools(query?: ToolsQuery): Promise<Advertised[]>
  /** Tool search: what each session loaded, the listeners to loads, and the deferral in effect. */
  readonly toolSearch: ToolSearchControl
  /**
   * What background subagents that finished since a session's last turn say, one message each, for its
   * next turn (the agent loop puts them before the prompt); each is handed out once.
   */
  takeNotices(sessionID: string): string[]
  /**
   * The registered tools not offered to an agent that say why (a search tool without a provider), then
   * each MCP server that failed, as `mcp:<server>` with its reason.
   */
  withheld(query?: ToolsQuery): Promise<{ name: string; reason: string }[]>
  call(input: CallInput): Promise<Settlement>
  /**
   * Stops a call this process is running, whatever surface started it: interrupted, its processes
   * killed, its record saying `stoppedBy: by`; resolves with how it ended. Undefined: not running here.
   */
  stopCall(sessionID: string, callID: string, by: string): Promise<Settlement | undefined> | undefined
  /**
   * A session's connection ended (an MCP client left): its background jobs are killed, and what this
   * process holds for it (session-only approvals, loop history, tools it loaded) is let go. The store keeps its record.
   */
  endSession(sessionID: string): Promise<void>
  /** Stops everything: pending asks are rejected, MCP servers and language servers closed, the store closed (if it is ours). */
  close(): Promise<void>
  [Symbol.asyncDispose](): Promise<void>
}

/**
 * Puts the runtime together for one project.
 * 1. The project: its directory, worktree, trust, config (given, or read from files as far as the
 *    project's trust allows) and data dir; its skills.
 * 2. The bus and the hooks, which everything after publishes to and consults.
 * 3. The records: the store (the caller's, else the one `TOOLBELT_STORE` or config names, else the
 *    data dir's file) and the output store; start-up recovery closes calls a crashed process
 *    left open, rolls back multi-file changes a crash cut short and removes temp files of killed
 *    writes.
 * 4. Permission (`startGuard`): the policy, the engine, the question flow, the fleet, the loop guard.
 * 5. The tools: built-ins, then tool files, then plugins (their tools and hooks), then MCP servers.
 *    (The skills were found in step 1; a v1 tool's `init` gets the services, so the skill tool lists them.)
 * 6. The output store's hourly sweep.
 * 7. The services the tools get in `ctx.extra`, subagents and tool search (`wireServices`).
 * 8. `call`: settles one call with the journal recording every step and the bus publishing it.
 * 9. `close`: undoes the above in reverse, once.
 * Steps 5 and 7 make closures over what steps 7 and 8 build (a tool's init reads the services, subagents
 * and batch make calls): those are bound late on purpose, through `wiring`, which refuses a use before
 * the end of step 8.
 */
export async function createToolbelt(options: ToolbeltOptions = {}): Promise<Toolbelt> {
  // 1. Project.
  const project = await openProject(options)
  const { directory, worktree, config, dataDir } = project
  const skills = await discoverSkills({ directory, worktree, env: project.env })

  // 2. Bus and hooks.
  const bus = new Bus()
  const hooks = new Hooks()

  // 3. Records.
  const given = typeof options.store === "string" && options.store !== "memory"
  const records = await openRecords({
    store: given ? checkStoreUrl(options.store, "The store option") : (options.store ?? project.store),
    dataDir,
    directory,
    bus,
  })
  const { store, output } = records
  const limits = resolveLimits(config.tool_output)
  // What is known of subagent sessions: their own rules, their depth, who started each.
  const subagentSessions = new SubagentSessions(store)

  // 4. Permission, questions, the fleet and the loop guard.
  const guard = await startGuard({ options, project, store, bus, hooks, skills, subagentSessions })
  const { policy } = guard

  // 5. Tools, initialised on first use (after step 7).
  const wiring = new Late<Wiring>("The toolbelt's services")
  const registry = new Registry({
    initExtra: (agent) => wiring.get().services.extraFor(agent),
    // The spec's InitContext.agent: the whole agent, as a plain copy.
    agentInfo: (agent) => {
      const found = policy.agents.get(agent)
      return found ? { ...found } : undefined
    },
  })
  const registered = await registerTools({
    ...project,
    registry,
    hooks,
    builtins: options.builtins,
    customTools: options.customTools,
  })
  const mcp =
    options.mcp === false
      ? undefined
      : await connectMcp({ registry, store, config, directory, env: project.env, log })

  // 6. Sweep.
  const sweeper = options.sweep === false ? undefined : output.startSweeper()

  // 7. Services.
  const runtime = { registry, store, bus, hooks, limits, rulesOf: policy.rulesOf }
  const { subagents, search, services, tools } = wireServices({
    options,
    project,
    runtime,
    records,
    guard,
    skills,
    subagentSessions,
    mcp,
    wiring,
  })

  // 8. Calls.
  const calls = sessionCalls({
    ...runtime,
    permission: guard.permission,
    output,
    doomLoop: guard.doomLoop,
    services,
    parts: options.parts,
    log,
  })
  wiring.bind({ services, calls })
  search.warm()

  // 9. Close.
  let closed: Promise<void> | undefined
  const close = () => {
    closed ??= (async () => {
      sweeper?.stop()
      subagents.close()
      calls.endAll()
      await search.close()
      await guard.stop()
      for (const handle of registered.handles.splice(0)) handle.close()
      await mcp?.close()
      await services.close()
      if (records.ownsStore) store.close()
    })()
    return closed
  }

  records.announceRecovered()
  return {
    directory,
    worktree,
    dataDir,
    config,
    trust: project.trust,
    registry,
    permission: guard.permission,
    policy,
    questions: guard.questions,
    bus,
    hooks,
    store,
    output,
    limits,
    recovered: records.recovered,
    crashRecovery: records.crashReport,
    mcp,
    pluginErrors: loadErrors(registered.errors, skills, policy),
    skills,
    tools,
    toolSearch: search.control,
    withheld: withheld({
      registry,
      extraFor: services.extraFor,
      failedSources: () => [
        ...(mcp?.notOffered() ?? []),
        ...toolFilesNotOffered(registered.errors, worktree),
      ],
    }),
    call: calls.call,
    stopCall: calls.stop,
    takeNotices: subagents.takeNotices,
    endSession: (sessionID) => {
      search.endSession(sessionID)
      return calls.endSession(sessionID)
    },
    close,
    [Symbol.asyncDispose]: close,
  }
}

/** What failed to load: plugins and tool files, then skills, then agent files. */
function loadErrors(
  registered: readonly PluginLoadError[],
  skills: SkillCatalog,
  policy: Policy,
): PluginLoadError[] {
  return [
    ...registered,
    ...skills.errors.map(({ file, error }) => ({ spec: file, error, kind: "skill" as const })),
    ...policy.errors.map(({ file, error }) => ({ spec: file, error, kind: "agent file" as const })),
  ]
}
