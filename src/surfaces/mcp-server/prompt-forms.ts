// How a prompt (a permission ask or the questions of a call) is shown to an MCP client: whether the
// client can show forms at all, the form for its revision, and the key it travels under.
import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type ElicitRequestFormParams,
  type ServerContext,
} from "@modelcontextprotocol/server"
import { ASK_KEY, askForm } from "./ask-form.ts"
import { showsForms } from "./client-forms.ts"
import { QUESTION_KEY, questionForm } from "./question-form.ts"
import type { Prompt } from "./running-call.ts"

/**
 * Whether the client can show a form: its capabilities on the request (2026-07-28) or from
 * `initialize` (2025 era). A bare `elicitation: {}` means form support.
 */
export function canElicit(ctx: ServerContext, declared: () => ClientCapabilities | undefined): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined
  const capabilities =
    (envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined) ?? declared()
  return showsForms(capabilities) === true
}

/** The key the prompt travels under in an `input_required` result and its retry. */
export function keyOf(prompt: Prompt): string {
  return prompt.kind === "permission" ? ASK_KEY : QUESTION_KEY
}

/** The form that shows the prompt, in the form the client's revision knows. */
export function formOf(prompt: Prompt, options: { titledEnums?: boolean } = {}): ElicitRequestFormParams {
  return prompt.kind === "permission" ? askForm(prompt.ask, options) : questionForm(prompt.request, options)
}

/** A 2026-07-28 request carries the per-request envelope; a 2025-era one does not. */
export function isModern(ctx: ServerContext): boolean {
  return ctx.mcpReq.envelope !== undefined
}
