// A permission ask as an MCP form elicitation, the person's answer as a permission reply, and the
// error a client that cannot show asks gets instead. Pure: no I/O, no SDK state.
import type { ElicitRequestFormParams } from "@modelcontextprotocol/server"
import type { PermissionAsked, PermissionReply } from "../../runtime/bus/events.ts"
import { askedBy } from "../../runtime/permission/asked-by.ts"
import { unansweredNote } from "../../runtime/permission/unchecked.ts"

/** The key of the permission ask in an `input_required` result (and of its answer on the retry). */
export const ASK_KEY = "permission"

/** How much of the ask's metadata (a diff, a command, ...) the form shows. */
const DETAILS_MAX_CHARS = 4000

export interface AskAnswer {
  readonly reply: PermissionReply
  readonly message?: string
  /** With `reject`: no one could be asked, and why (the call's error then claims no one said no). */
  readonly unanswered?: string
}

export interface AskFormOptions {
  /**
   * Label the choices with titled enums (`oneOf` of `{const, title}`, 2025-11-25 and later); false:
   * the `enum` + `enumNames` form that 2025-06-18 clients know. Default true.
   */
  readonly titledEnums?: boolean
}

/**
 * The form shown for one ask: which tool wants which permission for which patterns, the details the
 * tool attached, and exactly what "always" saves (the ask's `always` list, for this project). The
 * choices are labelled in the form the client's protocol revision knows.
 */
export function askForm(ask: PermissionAsked, options: AskFormOptions = {}): ElicitRequestFormParams {
  const tool = ask.tool?.name ? `The ${ask.tool.name} tool` : "A tool"
  const by = askedBy(ask.subagent)
  const remembered = describeAlways(ask)
  const lines = [
    `${tool}${by ? ` of ${by}` : ""} asks for permission "${ask.permission}":`,
    ...ask.patterns.map((pattern) => `  ${pattern}`),
  ]
  const details = describeMetadata(ask.metadata)
  if (details) lines.push("", details)
  lines.push(
    "",
    "Allow once: this call goes on.",
    `Always: this call goes on, and toolbelt saves ${remembered} for this project (list or revoke with "toolbelt permissions").`,
    "Reject: the call fails; your message, if you write one, is passed to the agent.",
  )
  return {
    mode: "form",
    message: lines.join("\n"),
    requestedSchema: {
      type: "object",
      properties: {
        decision: {
          type: "string",
          title: "Decision",
          description: `Allow this ${ask.permission} request once, always (saves ${remembered}), or reject it.`,
          ...choices(
            [
              ["once", "Allow once"],
              [
                "always",
                ask.always.length
                  ? `Always allow ${remembered}`
                  : "Always: allows this call once, saves nothing",
              ],
              ["reject", "Reject"],
            ],
            options.titledEnums ?? true,
          ),
        },
        message: {
          type: "string",
          title: "Message to the agent (optional)",
          description: "With Reject: what the agent should do instead.",
        },
      },
      required: ["decision"],
    },
  }
}

/**
 * The permission reply for an elicitation answer. Accepted with `once` or `always` → that reply;
 * anything else (reject, declined, cancelled, missing or malformed) → reject, with the person's
 * message when they wrote one.
 */
export function answerOf(response: unknown): AskAnswer {
  if (typeof response !== "object" || response === null) return { reply: "reject" }
  const { action, content } = response as { action?: unknown; content?: unknown }
  if (action !== "accept" || typeof content !== "object" || content === null) return { reply: "reject" }
  const { decision, message } = content as { decision?: unknown; message?: unknown }
  if (decision === "once" || decision === "always") return { reply: decision }
  const text = typeof message === "string" ? message.trim() : ""
  return text ? { reply: "reject", message: text } : { reply: "reject" }
}

/**
 * What the model reads when an ask was rejected because the client cannot show it: what was asked,
 * why it was rejected, and the exact config that allows it.
 */
export function fallbackRejection(ask: PermissionAsked, directory: string): string {
  const rules = Object.fromEntries(ask.always.map((pattern) => [pattern, "allow"]))
  const config = JSON.stringify({ permission: { [ask.permission]: rules } })
  const note = unansweredNote(ask.metadata)
  return (
    `Permission "${ask.permission}" for ${ask.patterns.join(", ")} needs approval, and this MCP client cannot ask the user (it does not support elicitation), so toolbelt rejected the call ("mcp.ask" is "reject"). ` +
    (note ? `${note} ` : "") +
    `To allow it, add ${config} to toolbelt.json in ${directory}, or set {"mcp":{"ask":"allow"}} there to approve every ask.`
  )
}

/** Labelled choices of a string field: titled `oneOf`, or the older `enum` with `enumNames`. */
function choices(
  labelled: readonly (readonly [value: string, title: string])[],
  titled: boolean,
): { oneOf: { const: string; title: string }[] } | { enum: string[]; enumNames: string[] } {
  if (titled) return { oneOf: labelled.map(([value, title]) => ({ const: value, title })) }
  return { enum: labelled.map(([value]) => value), enumNames: labelled.map(([, title]) => title) }
}

function describeAlways(ask: PermissionAsked): string {
  // An empty list saves nothing (no pattern matches only this call): said so, never the patterns.
  if (ask.always.length === 0) return "nothing (no pattern matches only this call)"
  return `"${ask.permission}" for ${ask.always.join(", ")}`
}

/** The ask's metadata as `key: value` lines, strings as they are, the rest as JSON, bounded. */
export function describeMetadata(metadata: Record<string, unknown>): string {
  const lines: string[] = []
  for (const [key, value] of Object.entries(metadata)) {
    if (value === undefined || value === null || value === "") continue
    const text = typeof value === "string" ? value : JSON.stringify(value)
    if (text === undefined) continue
    lines.push(text.includes("\n") ? `${key}:\n${text}` : `${key}: ${text}`)
  }
  const all = lines.join("\n")
  return all.length > DETAILS_MAX_CHARS ? `${all.slice(0, DETAILS_MAX_CHARS)}\n… (cut)` : all
}
