// The composition root: builds a toolbelt for one project from its config, in named steps.

import type { Store } from "../platform/store/store.ts"
import { resolveLimits } from "../platform/text/limits.ts"
import { logger } from "../platform/util/log.ts"
import { Bus } from "../runtime/bus/bus.ts"
import type { Config } from "../runtime/config/config.ts"
import type { TrustStore } from "../runtime/config/trust/trust-store.ts"
import { Hooks } from "../runtime/hooks/hooks.ts"
import type { Decide } from "../runtime/permission/simple.ts"
import type { AnswerQuestions } from "../runtime/question/question.ts"
import { Registry } from "../runtime/registry/registry.ts"
import type { PartSink } from "../runtime/settle/settle.ts"
import { discoverSkills } from "../runtime/skills/catalog.ts"
import { Late } from "./late.ts"
import { checkStoreUrl, openProject } from "./open-project.ts"
import { openRecords } from "./open-records.ts"
import { closeOnce, expose, type Toolbelt } from "./public-toolbelt.ts"
import { connectMcp, registerTools } from "./register-tools.ts"
import { sessionCalls } from "./session-calls.ts"
import { SubagentSessions } from "./subagent-sessions.ts"
import { startGuard, type Wiring, wireServices } from "./toolbelt-steps.ts"

export type { PermissionReplies, QuestionReplies, Toolbelt } from "./public-toolbelt.ts"
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
  const { subagents, search, services, tools, host } = wireServices({
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

  // 9. Close, and the object returned.
  const close = closeOnce({ sweeper, subagents, calls, search, guard, registered, mcp, services, records })
  records.announceRecovered()
  const parts = { project, records, registry, guard, bus, hooks, limits, skills, mcp, registered }
  return expose({ ...parts, tools, services, search, calls, subagents, host, close })
}
