// The object `createToolbelt` returns: what a library user holds, and the step that makes it.

import { lendHost, type ToolHost } from "../adapters/ai/host.ts"
import type { McpServers } from "../adapters/mcp-client/index.ts"
import { toolFilesNotOffered } from "../adapters/plugins/custom-tools.ts"
import type { PluginLoadError } from "../adapters/plugins/load.ts"
import type { CrashRecovery } from "../platform/fs/crash-recovery.ts"
import type { Recovery } from "../platform/store/journal.ts"
import type { Limits } from "../platform/text/limits.ts"
import type { Bus } from "../runtime/bus/bus.ts"
import type { Config } from "../runtime/config/config.ts"
import type { ProjectTrust } from "../runtime/config/trust/project-trust.ts"
import type { Hooks } from "../runtime/hooks/hooks.ts"
import type { Policy } from "../runtime/permission/agents/policy.ts"
import type { PermissionEngine } from "../runtime/permission/engine.ts"
import type { QuestionService } from "../runtime/question/service.ts"
import type { Advertised, Registry, ToolsQuery } from "../runtime/registry/registry.ts"
import type { Settlement } from "../runtime/settle/settle.ts"
import type { SkillCatalog } from "../runtime/skills/catalog.ts"
import { withheld } from "./advertise.ts"
import { attachInternals } from "./internals.ts"
import type { Project } from "./open-project.ts"
import type { Records } from "./open-records.ts"
import type { Registered } from "./register-tools.ts"
import type { CallInput, SessionCalls } from "./session-calls.ts"
import type { SubagentService } from "./subagents.ts"
import type { ToolSearchWiring } from "./tool-search.ts"
import type { ToolServicesFor } from "./tool-services.ts"
import type { Guard } from "./toolbelt-steps.ts"

/** The permission asks waiting for a person: `list` them, `reply` to one (once, always, reject). */
export type PermissionReplies = Pick<PermissionEngine, "list" | "reply">

/** The questions tools put to a person: `list` the pending ones, `reply` to or `reject` one. */
export type QuestionReplies = Pick<QuestionService, "list" | "reply" | "reject">

/**
 * What a library user holds. The surfaces reach the rest (the store, the bus to publish on, the whole
 * registry and permission engine, hooks, output store, limits, policy, tool search) through
 * `internals(toolbelt)` (`compose/internals.ts`), which the package does not export.
 */
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
  /** Registers tools for this project (`Tool.make`/`Tool.define` values by name); the handle removes them. */
  register: Registry["register"]
  /** The permission asks the rules left open, waiting for `reply` when no `decide` was given. */
  readonly permission: PermissionReplies
  /** The questions tools put to a person, waiting for `reply` when no `answer` was given. */
  readonly questions: QuestionReplies
  /**
   * Watches the events: one type (`"permission.asked"`, `"message.part.updated"`, ...) or `"*"`; each
   * subscriber has its own bounded queue. Call what it returns to stop.
   */
  subscribe: Bus["subscribe"]
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

/** Step 9 of `createToolbelt`: undoes the steps before it in reverse, once (a second `close` gets the first's promise). */
export function closeOnce(parts: {
  sweeper: { stop(): void } | undefined
  subagents: SubagentService
  calls: SessionCalls
  search: ToolSearchWiring
  guard: Guard
  registered: Registered
  mcp: McpServers | undefined
  services: ToolServicesFor
  records: Records
}): () => Promise<void> {
  const { sweeper, subagents, calls, search, guard, registered, mcp, services, records } = parts
  let closed: Promise<void> | undefined
  return () => {
    closed ??= (async () => {
      sweeper?.stop()
      subagents.close()
      calls.endAll()
      await search.close()
      await guard.stop()
      for (const handle of registered.handles.splice(0)) handle.close()
      await mcp?.close()
      await services.close()
      if (records.ownsStore) records.store.close()
    })()
    return closed
  }
}

/**
 * The object `createToolbelt` returns: narrow views over the parts (each a function over the part, so
 * the part itself is not reachable from it); the parts themselves attached for `internals`, and the
 * host lent to the AI SDK adapter.
 */
export function expose(built: {
  project: Project
  records: Records
  registry: Registry
  guard: Guard
  bus: Bus
  hooks: Hooks
  limits: Limits
  skills: SkillCatalog
  mcp: McpServers | undefined
  registered: Registered
  tools: (query?: ToolsQuery) => Promise<Advertised[]>
  services: ToolServicesFor
  search: ToolSearchWiring
  calls: SessionCalls
  subagents: SubagentService
  host: ToolHost
  close: () => Promise<void>
}): Toolbelt {
  const { project, records, registry, guard, bus, mcp, registered, search, calls, close } = built
  const { permission, questions, policy } = guard
  const toolbelt: Toolbelt = {
    directory: project.directory,
    worktree: project.worktree,
    dataDir: project.dataDir,
    config: project.config,
    trust: project.trust,
    register: (tools, options) => registry.register(tools, options),
    permission: {
      list: (sessionID) => permission.list(sessionID),
      reply: (input) => permission.reply(input),
    },
    questions: {
      list: (sessionID) => questions.list(sessionID),
      reply: (input) => questions.reply(input),
      reject: (input) => questions.reject(input),
    },
    // Bound rather than wrapped: a wrapper would lose `subscribe`'s overloads.
    subscribe: bus.subscribe.bind(bus) as Bus["subscribe"],
    recovered: records.recovered,
    crashRecovery: records.crashReport,
    pluginErrors: loadErrors(registered.errors, built.skills, policy),
    skills: built.skills,
    mcp,
    tools: built.tools,
    withheld: withheld({
      registry,
      extraFor: built.services.extraFor,
      failedSources: () => [
        ...(mcp?.notOffered() ?? []),
        ...toolFilesNotOffered(registered.errors, project.worktree),
      ],
    }),
    call: calls.call,
    stopCall: calls.stop,
    takeNotices: built.subagents.takeNotices,
    endSession: (sessionID) => {
      search.endSession(sessionID)
      return calls.endSession(sessionID)
    },
    close,
    [Symbol.asyncDispose]: close,
  }
  lendHost(toolbelt, built.host)
  return attachInternals(toolbelt, {
    registry,
    permission,
    policy,
    questions,
    bus,
    hooks: built.hooks,
    store: records.store,
    output: records.output,
    limits: built.limits,
    toolSearch: search.control,
  })
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
