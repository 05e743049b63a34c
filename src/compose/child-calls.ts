// Calls a tool makes on behalf of its own (batch): each settled as a call of its own, under an id that
// names the call that made it.

import type { Limits } from "../platform/text/limits.ts"
import { PermissionRejectedError, refusalOf } from "../runtime/permission/errors.ts"
import { QuestionRejectedError, QuestionUnansweredError } from "../runtime/question/errors.ts"
import type { Advertised, Registry, ToolsQuery, Turn } from "../runtime/registry/registry.ts"
import type { Settlement } from "../runtime/settle/settle.ts"
import type { CallInput } from "../runtime/settle/types.ts"
import type { ChildCalls, ChildSettlement } from "../runtime/tool/services.ts"

/** The key of `ctx.extra` that marks a child call with its parent's call id. */
const PARENT = "parentCallID"

/** The call being settled, as `childCalls` needs it. */
export interface ParentCall {
  readonly tool: string
  readonly sessionID: string
  readonly messageID: string
  readonly agent: string
  readonly callID: string
  readonly abort?: AbortSignal | undefined
  readonly turn?: Turn | undefined
  readonly messages?: CallInput["messages"]
  /** The `extra` its caller gave (not the services laid under it). */
  readonly extra?: Readonly<Record<string, unknown>> | undefined
}

/** The call id of the `n`th call made by `parent` (n from 1). */
export function childCallID(parent: string, n: number): string {
  return `${parent}.${n}`
}

/** The call that made `callID`, when `callID` is a child's; undefined otherwise. */
export function parentCallID(callID: string): string | undefined {
  return /^(.+)\.\d+$/.exec(callID)?.[1]
}

/**
 * The child calls of `parent`; undefined when `parent` is itself a child (no nesting).
 * 1. `offered`: every tool the parent's agent may call, deferred ones too (within the parent's turn, when it had one),
 *    without the parent's own tool; found once per parent call.
 * 2. `settle`: the full call path (`settle` is the toolbelt's `call`) with the parent's session, message,
 *    agent, abort signal, messages and caller's `extra` (marked as a child's), the call id
 *    `<parent>.<n>`, and a turn of the offered tools: a name outside it is refused as unknown, and
 *    a registration replaced since it was offered as stale. A call given a `share` of the output bounds
 *    is bounded to that part of `limits`, by settlement and by a tool that bounds its own output.
 * 3. `refusal`: a blocked child stops the turn with the parent, saying who refused it as the child
 *    said it (`refusalOf`): no one could be asked, the loop guard, toolbelt stopping; a question no one
 *    could answer, or one a person dismissed, as that question's refusal; only a person's "no" (to its
 *    own ask, or to the loop guard's) as a person's "no" to the parent.
 */
export function childCalls({
  parent,
  settle,
  tools,
  registry,
  limits,
}: {
  parent: ParentCall
  settle: (input: CallInput) => Promise<Settlement>
  tools: (query: ToolsQuery) => Promise<Advertised[]>
  registry: Registry
  /** The toolbelt's output bounds. */
  limits: Limits
}): ChildCalls | undefined {
  if (parent.extra?.[PARENT] !== undefined) return undefined

  // 1. What the children may call.
  let turn: Promise<Turn> | undefined
  const offered = () => {
    // Every tool the agent may call, deferred ones too: a deferred tool is callable by name, loaded or not.
    turn ??= tools({ agent: parent.agent, sessionID: parent.sessionID, listing: "callable" }).then(
      (advertised) => {
        const current = registry.turn(advertised.filter((tool) => tool.name !== parent.tool))
        if (!parent.turn) return current
        const within = new Map<string, symbol>()
        for (const [name, identity] of parent.turn) if (current.has(name)) within.set(name, identity)
        return within
      },
    )
    return turn
  }

  return {
    offered: async () => [...(await offered()).keys()].sort(),
    // 2. Each child through the whole call path.
    async settle(call, n) {
      const callID = childCallID(parent.callID, n)
      const bounds = call.share === undefined ? undefined : shareOf(limits, call.share)
      const settlement = await settle({
        tool: call.tool,
        input: call.input,
        sessionID: parent.sessionID,
        messageID: parent.messageID,
        agent: parent.agent,
        callID,
        parentCallID: parent.callID,
        ...(parent.abort ? { abort: parent.abort } : {}),
        ...(parent.messages ? { messages: parent.messages } : {}),
        turn: await offered(),
        // Settlement bounds the text; a tool that bounds its own output (the shell) reads `limits`.
        ...(bounds ? { bounding: bounds } : {}),
        extra: { ...parent.extra, [PARENT]: parent.callID, ...(bounds ? { limits: bounds } : {}) },
      })
      return childSettlement(callID, settlement)
    },
    // 3. A refused child stops the turn, saying who refused it.
    refusal(child) {
      if (child.kind === "question")
        return child.error.startsWith(QUESTION_UNANSWERED)
          ? new QuestionUnansweredError(child.error.slice(QUESTION_UNANSWERED.length))
          : new QuestionRejectedError(child.error)
      return refusalOf(child.error) ?? new PermissionRejectedError()
    },
  }
}

/** `share` (0 to 1) of the bounds, at least a line and a kilobyte. */
function shareOf(limits: Limits, share: number): Pick<Limits, "maxLines" | "maxBytes"> {
  const part = Math.min(1, Math.max(0, share))
  return {
    maxLines: Math.max(1, Math.floor(limits.maxLines * part)),
    maxBytes: Math.max(1024, Math.floor(limits.maxBytes * part)),
  }
}

/** How every unanswered question's message starts (the reason follows). */
const QUESTION_UNANSWERED = new QuestionUnansweredError("").message

function childSettlement(callID: string, settlement: Settlement): ChildSettlement {
  const { part: _recorded, ...answer } = settlement
  return { callID, ...answer }
}
