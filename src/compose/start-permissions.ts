// Step 3 of building a toolbelt: the permission policy and the engine that applies it.

import type { Store } from "../platform/store/store.ts"
import type { Bus } from "../runtime/bus/bus.ts"
import type { PermissionAsked } from "../runtime/bus/events.ts"
import type { Config } from "../runtime/config/config.ts"
import type { Hooks } from "../runtime/hooks/hooks.ts"
import { DEFAULT_AGENT } from "../runtime/permission/agents/agent.ts"
import { loadPolicy, type Policy } from "../runtime/permission/agents/policy.ts"
import { PermissionEngine } from "../runtime/permission/engine.ts"
import type { Ruleset } from "../runtime/permission/rule.ts"
import type { AskRequest } from "../runtime/permission/service.ts"
import type { Decide } from "../runtime/permission/simple.ts"
import { promptEnd } from "./fleet.ts"
import type { SubagentSessions } from "./subagent-sessions.ts"

export interface Permissions {
  readonly policy: Policy
  readonly permission: PermissionEngine
  /**
   * The rulesets a call of `agent` (in `sessionID`) is decided by: the agent's ruleset first, then each
   * constraint (the agent's, then the session's). Tool lists hide what any of them fully denies.
   */
  rulesetsFor(agent: string, sessionID?: string): readonly Ruleset[]
  /** Stops answering and journaling asks, and rejects the pending ones. */
  stop(): void
}

/**
 * Starts permission for one project.
 * 1. The policy: every agent's rules, from the given config or the config files (and variable); a
 *    project's own rules applied only when it is `trusted`; the `ceiling` agent held over every call.
 * 2. The engine: the policy's rules and constraints, a subagent session's parent's whole policy, the
 *    approvals saved in the store, the `permission.ask` hooks; it publishes every ask and reply.
 * 3. The journal records every ask and reply, so asks a crashed process left waiting are known.
 * 4. With `decide` (a TTY prompt, `--yes`), asks the rules leave open are answered by it.
 */
export async function startPermissions({
  directory,
  worktree,
  dataDir,
  env,
  config,
  store,
  bus,
  hooks,
  decide,
  subagents,
  skillDirs,
  trusted,
  ceiling,
}: {
  directory: string
  /** The repository root: agent files are looked for from it down to the project directory. */
  worktree?: string
  dataDir: string
  env: NodeJS.ProcessEnv
  /** Config to take the rules from instead of the config files. */
  config: Config | undefined
  store: Store
  bus: Bus
  hooks: Hooks
  decide: Decide | undefined
  /** Subagent sessions: their own rules apply after their agent's, and their asks say who asks. */
  subagents?: SubagentSessions
  /** The skills' folders, pre-approved outside the project. */
  skillDirs?: readonly string[]
  /** Whether the project is trusted: its own rules are applied; otherwise they only tighten. */
  trusted: boolean
  /** An agent no call may be more permissive than, whatever agent it runs as (`serve --agent X`). */
  ceiling?: string | undefined
}): Promise<Permissions> {
  const policy = await loadPolicy({
    directory,
    dataDir,
    env,
    trusted,
    ...(worktree ? { worktree } : {}),
    ...(config ? { config } : {}),
    ...(skillDirs ? { skillDirs } : {}),
    ...(ceiling !== undefined ? { ceiling } : {}),
  })
  // What a parent session's calls are decided by: a subagent under it is held to all of it.
  const heldTo = (agent: string): Ruleset[] => [policy.rulesOf(agent), ...policy.constraintsOf(agent)]
  const sessionConstraints = (sessionID: string): Ruleset[] =>
    subagents ? subagents.constraints(sessionID, heldTo) : []
  const permission = new PermissionEngine({
    projectID: directory,
    rules: policy.rulesOf,
    constraints: policy.constraintsOf,
    approvals: store.approvals,
    publish: bus.publish,
    consult: async (request) => (await hooks.decidePermission(request)).status,
    ...(subagents
      ? {
          sessionConstraints,
          subagentOf: (sessionID: string) => subagents.subagentOf(sessionID),
        }
      : {}),
  })
  const journalAsks = bus.subscribe("permission.asked", (event) => store.journal.asked(event.properties))
  const journalReplies = bus.subscribe("permission.replied", async (event) => {
    await store.journal.decided(event.properties.requestID, event.properties.reply)
  })
  const answering = decide ? answerAsks({ bus, permission, decide }) : undefined
  return {
    policy,
    permission,
    rulesetsFor: (agent, sessionID) => [
      ...heldTo(agent),
      ...(sessionID === undefined ? [] : sessionConstraints(sessionID)),
    ],
    stop() {
      answering?.()
      journalAsks()
      journalReplies()
      permission.dispose()
    },
  }
}

/** Answers each ask the rules leave open with `decide` (one at a time, in the order they came). */
function answerAsks({
  bus,
  permission,
  decide,
}: {
  bus: Bus
  permission: PermissionEngine
  decide: Decide
}): () => void {
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
      ...(asked.subagent ? { subagent: asked.subagent } : {}),
    }
    // The prompt closes when the ask ends some other way (answered on another instance, withdrawn).
    const end = promptEnd(bus, "permission", asked.id)
    let reply: Awaited<ReturnType<Decide>>
    try {
      reply = await decide(request, { signal: end.signal })
    } finally {
      end.stop()
    }
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
