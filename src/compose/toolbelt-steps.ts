// Two steps of `createToolbelt` with many parts each: the guard (step 4) and the services (step 7).

import type { ToolHost } from "../adapters/ai/host.ts"
import type { McpServers } from "../adapters/mcp-client/index.ts"
import type { Store } from "../platform/store/store.ts"
import type { Limits } from "../platform/text/limits.ts"
import { logger } from "../platform/util/log.ts"
import type { Bus } from "../runtime/bus/bus.ts"
import { toolSearchSettings } from "../runtime/config/config.ts"
import type { Hooks } from "../runtime/hooks/hooks.ts"
import type { Ruleset } from "../runtime/permission/rule.ts"
import type { Decide } from "../runtime/permission/simple.ts"
import type { AnswerQuestions } from "../runtime/question/question.ts"
import { QuestionService } from "../runtime/question/service.ts"
import type { Advertised, Registry, ToolsQuery } from "../runtime/registry/registry.ts"
import { DoomLoopGuard } from "../runtime/settle/doom-loop.ts"
import type { SkillCatalog } from "../runtime/skills/catalog.ts"
import { advertise } from "./advertise.ts"
import { closingWhenEnded, joinFleet } from "./fleet.ts"
import type { Late } from "./late.ts"
import type { Project } from "./open-project.ts"
import type { Records } from "./open-records.ts"
import type { SessionCalls } from "./session-calls.ts"
import { type Permissions, startPermissions } from "./start-permissions.ts"
import type { SubagentSessions } from "./subagent-sessions.ts"
import { type SubagentService, subagentService } from "./subagents.ts"
import { type ToolSearchWiring, toolSearchWiring } from "./tool-search.ts"
import { type ToolServicesFor, toolServices } from "./tool-services.ts"

const log = logger("toolbelt")

/** What is built last and called by what is built before it (bound once step 8 is done). */
export interface Wiring {
  readonly services: ToolServicesFor
  readonly calls: SessionCalls
}

/** The toolbelt's options these steps read (`ToolbeltOptions` says what each means). */
interface StepOptions {
  readonly decide?: Decide | undefined
  readonly answer?: AnswerQuestions | undefined
  readonly ceiling?: string | undefined
  readonly editDiagnostics?: boolean | undefined
}

/** What the later steps share. */
export interface Runtime {
  readonly registry: Registry
  readonly store: Store
  readonly bus: Bus
  readonly hooks: Hooks
  readonly limits: Limits
  readonly rulesOf: (agent: string) => Ruleset
}

export interface Guard extends Omit<Permissions, "stop"> {
  readonly questions: QuestionService
  readonly doomLoop: DoomLoopGuard
  /** Leaves the fleet, stops the permission engine's timers, disposes of the questions. */
  stop(): Promise<void>
}

/**
 * Step 4, the guard:
 * 1. the permission policy (agent rules from config) and engine (approvals saved in the store), asks and
 *    replies journaled, asks answered by `decide` when given;
 * 2. the question flow (questions answered by `answer` when given);
 * 3. on a shared PostgreSQL store, the fleet: its asks and questions, replies given elsewhere, expired
 *    owners swept;
 * 4. the loop guard, whose threshold config checks before any tool loads.
 */
export async function startGuard({
  options,
  project,
  store,
  bus,
  hooks,
  skills,
  subagentSessions,
}: {
  options: StepOptions
  project: Project
  store: Store
  bus: Bus
  hooks: Hooks
  skills: SkillCatalog
  subagentSessions: SubagentSessions
}): Promise<Guard> {
  const { directory, worktree, dataDir, env, config } = project
  const permissions = await startPermissions({
    directory,
    worktree,
    dataDir,
    env,
    config: project.configGiven ? config : undefined,
    store,
    bus,
    hooks,
    decide: options.decide,
    subagents: subagentSessions,
    // Only the user's own skill folders, by real path: a project's skills are paths like any other.
    skillDirs: skills.preApprovedDirs,
    trusted: project.trust.trusted,
    ceiling: options.ceiling,
  })
  const questions = new QuestionService({
    publish: bus.publish,
    ...(options.answer ? { answer: closingWhenEnded(bus, options.answer) } : {}),
  })
  const fleet = joinFleet({ store, permission: permissions.permission, questions, bus, log })
  const doomLoop = new DoomLoopGuard(config.doom_loop as { threshold?: number } | undefined)
  return {
    policy: permissions.policy,
    permission: permissions.permission,
    rulesetsFor: permissions.rulesetsFor,
    questions,
    doomLoop,
    async stop() {
      await fleet.stop()
      permissions.stop()
      questions.dispose()
    },
  }
}

/**
 * Step 7, the services:
 * 1. subagents, whose turns run on this toolbelt (`host`, also lent to the AI SDK adapter);
 * 2. what each agent may see (`advertise`) and, of it, what is listed (tool search: deferral, the
 *    sessions' loaded sets, the index);
 * 3. the services tools get in `ctx.extra`, whose calls on another's behalf go through step 8's calls.
 */
export function wireServices({
  options,
  project,
  runtime,
  records,
  guard,
  skills,
  subagentSessions,
  mcp,
  wiring,
}: {
  options: StepOptions
  project: Project
  runtime: Runtime
  records: Records
  guard: Guard
  skills: SkillCatalog
  subagentSessions: SubagentSessions
  mcp: McpServers | undefined
  wiring: Late<Wiring>
}): {
  subagents: SubagentService
  search: ToolSearchWiring
  services: ToolServicesFor
  tools: (query?: ToolsQuery) => Promise<Advertised[]>
  host: ToolHost
} {
  const { registry, hooks } = runtime
  const { policy, rulesetsFor } = guard
  const extraFor = (agent: string) => wiring.get().services.extraFor(agent)
  const subagents = subagentService({
    ...project,
    store: runtime.store,
    bus: runtime.bus,
    agents: policy.agents,
    rulesOf: policy.rulesOf,
    constraintsOf: policy.constraintsOf,
    sessions: subagentSessions,
    // The toolbelt the subagents' turns run on.
    host: () => host,
  })
  const visible = advertise({ registry, hooks, rulesetsFor, extraFor })
  const search = toolSearchWiring({
    registry,
    settings: toolSearchSettings(project.config),
    dataDir: project.dataDir,
    visible,
    extraFor,
    aboutSource: (source) => mcp?.about(source),
  })
  // What the AI SDK adapter runs turns on: the subagents' and (lent by the toolbelt) a library user's.
  const host: ToolHost = {
    directory: project.directory,
    registry,
    store: runtime.store,
    bus: runtime.bus,
    tools: search.tools,
    call: (input) => wiring.get().calls.call(input),
    takeNotices: subagents.takeNotices,
    toolSearch: search.control,
    policy,
  }
  const services = toolServices({
    ...project,
    ...runtime,
    rulesetsFor,
    recovery: records.crashLog,
    outputDir: records.output.dir,
    questions: guard.questions,
    skills,
    afterEdits: options.editDiagnostics,
    settleChild: (input) => wiring.get().calls.call(input),
    tools: (query) => search.tools(query),
    subagents,
    toolSearch: search.service,
  })
  return { subagents, search, services, tools: search.tools, host }
}
