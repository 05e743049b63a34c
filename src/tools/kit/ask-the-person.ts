// What question and plan_exit share: both put questions to the person, so they are offered only where
// someone can answer, ask their own permission first, and ask through the question flow as their call.
import * as Tool from "../../runtime/tool/index.ts"
import { services } from "../../runtime/tool/services.ts"
import type { Answers, Question } from "../../runtime/tool/session-services.ts"

/** A tool that asks the person is offered only where someone can answer (not in a run without one). */
export const WHERE_SOMEONE_ANSWERS: Tool.Declarations = {
  available: (env) => env.interactive !== false,
}

/** Puts questions to the person and resolves with the answers (one list of labels per question). */
export type AskThePerson = (questions: readonly Question[]) => Promise<Answers>

/**
 * The first step of a tool that asks the person.
 * 1. Ask the tool's own permission (pattern and always `*`).
 * 2. The question flow must be there; without it the call fails saying `nobody`.
 * Returns how to put questions to the person as the call's (its session, message and call id): a
 * dismissal or the call's abort rejects.
 */
export async function personToAsk(
  ctx: Tool.Context,
  permission: string,
  nobody: string,
): Promise<AskThePerson> {
  await ctx.ask({ permission, patterns: ["*"], always: ["*"], metadata: {} })
  const { questions } = services(ctx)
  if (!questions) throw new Tool.ToolFailure(nobody)
  return (asked) =>
    questions.ask(
      { sessionID: ctx.sessionID, questions: asked, tool: { messageID: ctx.messageID, callID: ctx.callID } },
      { signal: ctx.abort },
    )
}
