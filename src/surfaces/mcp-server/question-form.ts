// A tool's questions as an MCP form elicitation, and the person's answer as the question flow's
// reply. Pure: no I/O, no SDK state.
import type { ElicitRequestFormParams } from "@modelcontextprotocol/server"
import type { Question, QuestionReply, QuestionRequest } from "../../runtime/question/question.ts"

/** The key of a question request in an `input_required` result (and of its answer on the retry). */
export const QUESTION_KEY = "question"

export interface QuestionFormOptions {
  /**
   * The client's revision knows titled enums and multi-select fields (2025-11-25 and later); false: a
   * choice is an `enum` with `enumNames`, and a multiple choice one yes/no field per option. Default true.
   */
  readonly titledEnums?: boolean
}

type Field = Record<string, unknown>

/**
 * The form shown for a request: the questions with every option's description in the message, then
 * for each question a choice field (`q1`: one option, or several where the question allows it) and,
 * where the person may type an answer of their own, a text field (`q1_own`). Nothing is required:
 * a question left empty is answered as unanswered; declining the form dismisses the questions.
 */
export function questionForm(
  request: QuestionRequest,
  options: QuestionFormOptions = {},
): ElicitRequestFormParams {
  const titled = options.titledEnums ?? true
  const properties: Record<string, Field> = {}
  const lines = [request.questions.length === 1 ? "The agent asks:" : "The agent asks these questions:"]
  request.questions.forEach((question, index) => {
    const key = `q${index + 1}`
    lines.push("", `${question.header}: ${question.question}`)
    for (const option of question.options)
      lines.push(`  - ${option.label}${option.description ? `: ${option.description}` : ""}`)
    Object.assign(properties, choiceFields(key, question, titled))
    if (question.custom !== false)
      properties[`${key}_own`] = {
        type: "string",
        title: `${question.header}: your own answer`,
        description:
          question.multiple === true ? "Added to the options you picked." : "Replaces the option you picked.",
      }
  })
  lines.push("", "Decline to dismiss the questions (the agent stops and waits for you).")
  return {
    mode: "form",
    message: lines.join("\n"),
    requestedSchema: { type: "object", properties: properties as never },
  }
}

/**
 * The reply for an elicitation answer: accepted → each question's picked labels (only labels it
 * offers) and the typed answer (which replaces a single choice, and joins a multiple one); declined,
 * cancelled or malformed → a dismissal.
 */
export function questionReplyOf(request: QuestionRequest, response: unknown): QuestionReply {
  if (typeof response !== "object" || response === null) return "dismiss"
  const { action, content } = response as { action?: unknown; content?: unknown }
  if (action !== "accept") return "dismiss"
  const values = (typeof content === "object" && content !== null ? content : {}) as Record<string, unknown>
  return request.questions.map((question, index) => {
    const key = `q${index + 1}`
    const offered = question.options.map((option) => option.label)
    const picked = pickedLabels(values, key, offered)
    const own = question.custom === false ? "" : textOf(values[`${key}_own`])
    if (question.multiple === true) return own ? [...picked, own] : picked
    if (own) return [own]
    return picked.slice(0, 1)
  })
}

function choiceFields(key: string, question: Question, titled: boolean): Record<string, Field> {
  const labels = question.options.map((option) => option.label)
  if (labels.length === 0) return {}
  const described = { title: question.header, description: question.question }
  if (question.multiple !== true) {
    return {
      [key]: titled
        ? { type: "string", ...described, oneOf: labels.map((label) => ({ const: label, title: label })) }
        : { type: "string", ...described, enum: labels, enumNames: labels },
    }
  }
  if (titled)
    return {
      [key]: {
        type: "array",
        ...described,
        items: { anyOf: labels.map((label) => ({ const: label, title: label })) },
      },
    }
  // Before 2025-11-25 a form holds only single values: one yes/no field per option.
  return Object.fromEntries(
    labels.map((label, n) => [
      `${key}_${n + 1}`,
      { type: "boolean", title: `${question.header}: ${label}`, description: question.question },
    ]),
  )
}

/** The labels picked for question `key`: its choice field (one or several), or its yes/no fields. */
function pickedLabels(values: Record<string, unknown>, key: string, offered: readonly string[]): string[] {
  const value = values[key]
  const chosen = Array.isArray(value)
    ? value
    : typeof value === "string"
      ? [value]
      : offered.filter((_, n) => values[`${key}_${n + 1}`] === true)
  return [...new Set(chosen.filter((label): label is string => offered.includes(label as string)))]
}

function textOf(value: unknown): string {
  return typeof value === "string" ? value.trim() : ""
}
