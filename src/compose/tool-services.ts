// Step 5 of building a toolbelt: what the tools get from the runtime, carried in `ctx.extra`.

import { LanguageServerPool } from "../adapters/lsp/language-server-pool.ts"
import { configureFileLocks } from "../platform/fs/lock.ts"
import type { RecoveryLog } from "../platform/fs/recovery-log.ts"
import type { Store } from "../platform/store/store.ts"
import type { Pager } from "../platform/text/hint.ts"
import type { Limits } from "../platform/text/limits.ts"
import type { Bus } from "../runtime/bus/bus.ts"
import type { Config } from "../runtime/config/config.ts"
import { type ProjectTrust, runsProjectPrograms } from "../runtime/config/trust/project-trust.ts"
import type { Hooks } from "../runtime/hooks/hooks.ts"
import type { Ruleset } from "../runtime/permission/rule.ts"
import { disabled } from "../runtime/permission/ruleset.ts"
import type { QuestionService } from "../runtime/question/service.ts"
import type { Advertised, Registry, ToolsQuery } from "../runtime/registry/registry.ts"
import type { Settlement } from "../runtime/settle/settle.ts"
import type { CallInput } from "../runtime/settle/types.ts"
import type { SkillCatalog } from "../runtime/skills/catalog.ts"
import type { CallRemoteTool, ChildCalls, ServiceExtra } from "../runtime/tool/services.ts"
import type { Subagents } from "../runtime/tool/subagent-services.ts"
import type { ToolSearchService } from "../tools/tool_search/service.ts"
import { childCalls, type ParentCall } from "./child-calls.ts"

export interface ToolServicesFor {
  /** The `ctx.extra` of a call by `agent` (a call's own `extra` is laid over it). */
  extraFor(agent: string): Readonly<Record<string, unknown>>
  /** The tool this agent reads files page by page with (read, unless replaced or denied): hints name it. */
  pagerFor(agent: string): Pager | undefined
  /** The calls `parent` may make on its behalf (batch's); undefined for a call that is itself one. */
  callsFor(parent: ParentCall): ChildCalls | undefined
  /** Stops what the services started (the language servers, with every process of theirs). */
  close(): Promise<void>
}

/**
 * The services the tools use, built once per toolbelt.
 * 1. How long a writer waits for another process's lock on a file (config `file.lock_wait_ms`;
 *    process-wide, like the lock itself).
 * 2. The project, the read ledger and first-time marks kept in the store (an instruction file is
 *    attached once per session, in any process), read-before-write (config `file.require_read`), the
 *    bus, the hooks, the crash-recovery log; each session's todo list and the agent it runs as (in the
 *    store: every process continuing the session sees them), and the question flow.
 * 3. What the shell tool reads: its config section, the output limits, where to spool output.
 * 4. Per agent, the pager that truncation hints name.
 * 5. The config and environment (tools read their own sections: `webfetch`, `websearch`), and the MCP
 *    client for search providers that speak MCP (loaded on first use: the SDK is not cheap to import).
 * 6. The project's skills, and the calls a call may make on its behalf (settled through `settleChild`,
 *    naming the tools `tools` advertises); tool search (tool_search's index and the sessions' loads).
 * 7. The project's language servers (config `lsp`), started when a tool first needs one; the project's
 *    own server programs only when a person trusted it.
 */
export function toolServices({
  directory,
  worktree,
  dataDir,
  config,
  env,
  store,
  bus,
  hooks,
  recovery,
  limits,
  outputDir,
  registry,
  rulesOf,
  rulesetsFor,
  questions,
  skills,
  settleChild,
  tools,
  subagents,
  toolSearch,
  afterEdits,
  trust,
}: {
  directory: string
  worktree: string
  /** The project's trust: its own programs (node_modules/.bin) run only when a person trusted it. */
  trust: Pick<ProjectTrust, "trusted" | "reason">
  dataDir: string
  config: Config
  env: NodeJS.ProcessEnv
  store: Store
  bus: Bus
  hooks: Hooks
  recovery: RecoveryLog
  limits: Limits
  outputDir: string
  registry: Registry
  rulesOf: (agent: string) => Ruleset
  /** The agent's ruleset and the constraints it is held to: a tool any of them fully denies is hidden. */
  rulesetsFor: (agent: string) => readonly Ruleset[]
  questions: QuestionService
  skills?: SkillCatalog | undefined
  /** The toolbelt's call path, for calls made on behalf of another. */
  settleChild?: ((input: CallInput) => Promise<Settlement>) | undefined
  /** The tools an agent is offered (what such calls may name). */
  tools?: ((query: ToolsQuery) => Promise<Advertised[]>) | undefined
  /** Starts subagents (the task tool). */
  subagents?: Subagents | undefined
  /** Finds deferred tools and loads them into a session (the tool_search tool). */
  toolSearch?: ToolSearchService | undefined
  /** Edits wait for language servers' diagnostics (default true). */
  afterEdits?: boolean | undefined
}): ToolServicesFor {
  const file = config.file as { lock_wait_ms?: unknown; require_read?: boolean } | undefined
  const lockWait = file?.lock_wait_ms
  if (typeof lockWait === "number" && lockWait >= 0) configureFileLocks({ waitMs: lockWait })
  const languageServers = new LanguageServerPool({
    directory,
    config: config.lsp,
    env,
    afterEdits,
    projectPrograms: runsProjectPrograms(trust),
  })
  const extra: ServiceExtra = {
    languageServers,
    directory,
    worktree,
    readLedger: store.readLedger,
    firstTime: (sessionID, key) => store.seen.firstTime(sessionID, key),
    requireRead: file?.require_read ?? true,
    publish: bus.publish,
    hooks,
    recovery,
    config,
    env,
    callRemoteTool: remoteToolCaller(env),
    todos: store.todos,
    questions,
    sessionAgent: {
      switch(sessionID, agent) {
        // An agent the policy does not know fails here (UnknownAgentError), before anything changes.
        rulesOf(agent)
        store.sessionAgents.set(sessionID, agent)
      },
    },
    ...(skills ? { skills } : {}),
    ...(subagents ? { subagents } : {}),
    ...(toolSearch ? { toolSearch } : {}),
  }
  const shell = { shell: config.shell, limits, outputDir, dataDir }
  const pagerFor = (agent: string) =>
    registry.pager({ agent }, (permission) =>
      rulesetsFor(agent).every((rules) => disabled([permission], rules).size === 0),
    )
  return {
    extraFor: (agent) => ({ ...extra, ...shell, pager: () => pagerFor(agent) }),
    pagerFor,
    callsFor: (parent) =>
      settleChild && tools ? childCalls({ parent, settle: settleChild, tools, registry, limits }) : undefined,
    close: () => languageServers.close(),
  }
}

function remoteToolCaller(env: NodeJS.ProcessEnv): CallRemoteTool {
  return async (call) => {
    const { callRemoteTool } = await import("../adapters/mcp-client/call-remote-tool.ts")
    return callRemoteTool(call, env)
  }
}
