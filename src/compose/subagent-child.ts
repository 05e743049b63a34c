// The child session a subagent runs in: the one its task id names, or a new one under the caller's.

import { hostname } from "node:os"
import type { SessionInfo } from "../platform/store/sessions.ts"
import type { Store } from "../platform/store/store.ts"
import { type Agent, subagentRules } from "../runtime/permission/agents/agent.ts"
import type { SubagentRequest } from "../runtime/tool/subagent-services.ts"
import type { SubagentSessions } from "./subagent-sessions.ts"

/**
 * The child session for `request`:
 * 1. the one `taskID` names, when it is a child of the calling session;
 * 2. else a new one, titled `<description> (@<agent> subagent)`, with the agent's rules for a subagent
 *    (todo tools off; at the depth limit, task denied). A calling session without a row of its own (an MCP
 *    connection's, `toolbelt call --session`'s) gets one first.
 */
export function childSession(
  request: SubagentRequest,
  agent: Agent,
  where: { store: Store; directory: string; sessions: SubagentSessions; maxDepth: number },
): SessionInfo {
  const { store, directory, sessions, maxDepth } = where
  const named = request.taskID ? store.sessions.get(request.taskID) : undefined
  if (named && named.parentID === request.parent.sessionID) return named
  if (!store.sessions.get(request.parent.sessionID)) {
    try {
      store.sessions.create({
        id: request.parent.sessionID,
        projectID: directory,
        host: hostname(),
        agent: request.parent.agent,
      })
    } catch (error) {
      // Created meanwhile (another process, a server's session index): it has its row.
      if (!store.sessions.get(request.parent.sessionID)) throw error
    }
  }
  const atDepthLimit = sessions.depth(request.parent.sessionID) + 1 >= maxDepth
  return store.sessions.create({
    projectID: directory,
    parentID: request.parent.sessionID,
    agent: agent.name,
    title: `${request.description} (@${agent.name} subagent)`,
    permission: subagentRules(agent.permission, { atDepthLimit }),
  })
}
