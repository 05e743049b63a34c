// The question flow at a terminal: each question as a numbered list of choices, several where the
// question allows it, an answer of one's own, or a dismissal.

import { isPromptEnd } from "../../compose/fleet.ts"
import type {
  AnswerQuestions,
  Question,
  QuestionReply,
  QuestionRequest,
} from "../../runtime/question/question.ts"
import { type IO, isTerminal } from "./io.ts"
import { endedNote } from "./prompt.ts"
import type { CommandStop } from "./stop-signal.ts"
import { terminalLines } from "./terminal-line.ts"
import { oneAtATime } from "./terminal-turn.ts"

/** What one line typed at a question's prompt means. */
export type Choice =
  | { readonly kind: "picked"; readonly labels: readonly string[]; readonly typeOwn: boolean }
  | { readonly kind: "typed"; readonly text: string }
  | { readonly kind: "dismiss" }
  | { readonly kind: "retry"; readonly hint: string }

/** The numbers shown: the options from 1, then "Type your own answer" when the question allows it. */
export function choiceCount(question: Question): number {
  return question.options.length + (question.custom === false ? 0 : 1)
}

/**
 * Reads one line typed at a question's prompt.
 * - `0` dismisses;
 * - numbers (several, separated by commas or spaces, where the question allows several) pick options;
 *   the number after the options asks for an answer of one's own;
 * - any other text is the person's own answer, where the question allows one;
 * - anything else (out of range, several for one, empty) is asked again, saying what to type.
 */
export function parseChoice(line: string, question: Question): Choice {
  const text = line.trim()
  const count = choiceCount(question)
  const own = question.custom === false ? undefined : question.options.length + 1
  const hint =
    question.multiple === true
      ? `Type one or more of the numbers 1-${count} (e.g. 1,3)${own ? ", or your own answer" : ""}; 0 dismisses.`
      : `Type a number from 1 to ${count}${own ? ", or your own answer" : ""}; 0 dismisses.`
  if (text === "") return { kind: "retry", hint }
  if (text === "0") return { kind: "dismiss" }
  const tokens = text.split(/[\s,]+/).filter(Boolean)
  if (tokens.every((token) => /^\d+$/.test(token))) {
    const numbers = [...new Set(tokens.map(Number))]
    if (numbers.some((n) => n < 1 || n > count)) return { kind: "retry", hint }
    if (numbers.length > 1 && question.multiple !== true) return { kind: "retry", hint }
    const labels = numbers.filter((n) => n !== own).map((n) => question.options[n - 1]!.label)
    return { kind: "picked", labels, typeOwn: own !== undefined && numbers.includes(own) }
  }
  if (own === undefined) return { kind: "retry", hint }
  return { kind: "typed", text }
}

/**
 * Asks the person at the terminal every question of a request, in order, on stderr (stdout keeps only
 * the command's result). A dismissal of any question dismisses the request. Ctrl+C stops the command
 * (`stop`: the call is interrupted, the command exits 130); Ctrl+D dismisses, as "0" does. `signal`
 * (the asking call ended, or the questions were answered on another instance) withdraws the questions:
 * when it says how they ended, what the prompt showed is erased and one line says it. A command already
 * stopped asks nothing.
 */
export async function promptForQuestions(
  io: IO,
  request: QuestionRequest,
  stop: CommandStop,
  signal?: AbortSignal,
): Promise<QuestionReply> {
  const ended = signal ? AbortSignal.any([stop.signal, signal]) : stop.signal
  if (ended.aborted) return withdrawn
  const lines = terminalLines(io, ended)
  /** The line typed, or the reply that ends the request instead. */
  const ask = async (prompt: string): Promise<{ line: string } | { ended: QuestionReply }> => {
    const typed = await lines.read(prompt)
    if (typed.kind === "line") return { line: typed.text }
    if (typed.kind === "end") return { ended: "dismiss" }
    if (typed.kind === "interrupt") stop.interrupt("the question prompt")
    // Answered on another instance, or withdrawn: what the prompt showed gives way to one line.
    else if (!stop.signal.aborted && isPromptEnd(signal?.reason)) {
      lines.erase(endedNote(`Question "${request.questions[0]?.header ?? ""}"`, signal.reason))
    }
    return { ended: withdrawn }
  }
  try {
    const answers: string[][] = []
    const total = request.questions.length
    for (const [index, question] of request.questions.entries()) {
      lines.write(`\n${describe(question, total > 1 ? `${index + 1} of ${total}` : "")}`)
      const prompt =
        question.multiple === true ? `Choose one or more (1-${choiceCount(question)}): ` : "Choose: "
      for (;;) {
        const typed = await ask(prompt)
        if ("ended" in typed) return typed.ended
        const choice = parseChoice(typed.line, question)
        if (choice.kind === "dismiss") return "dismiss"
        if (choice.kind === "retry") {
          lines.write(`${choice.hint}\n`)
          continue
        }
        if (choice.kind === "typed") {
          answers.push([choice.text])
          break
        }
        const labels = [...choice.labels]
        if (choice.typeOwn) {
          const own = await ask("Your answer: ")
          if ("ended" in own) return own.ended
          if (own.line.trim()) labels.push(own.line.trim())
        }
        answers.push(labels)
        break
      }
    }
    return answers
  } finally {
    lines.close()
  }
}

/**
 * The reply to questions whose call ended or whose command was stopped: never used in practice, because
 * the call's end withdraws the request before any reply could reach it.
 */
const withdrawn: QuestionReply = { unanswered: "the call ended before the question was answered." }

/**
 * How a command answers the questions tools ask: on a terminal the person is asked (one prompt at a
 * time, permission asks included; Ctrl+C there is `stop`'s); otherwise nobody can answer, and the call
 * says so. (Where nobody can answer, the tools that ask are not offered to a model in the first place.)
 */
export function commandAnswer(io: IO, command: string, stop: CommandStop): AnswerQuestions {
  if (isTerminal(io, "stdin"))
    return (request, options) => oneAtATime(() => promptForQuestions(io, request, stop, options.signal))
  return async () => ({
    unanswered: `toolbelt ${command} cannot ask the user: stdin is not a terminal. Run it in a terminal to answer questions.`,
  })
}

function describe(question: Question, position: string): string {
  const lines = [`Question${position ? ` ${position}` : ""}: ${question.header}`, question.question]
  question.options.forEach((option, index) => {
    lines.push(`  ${index + 1}. ${option.label}${option.description ? ` - ${option.description}` : ""}`)
  })
  if (question.custom !== false) lines.push(`  ${question.options.length + 1}. Type your own answer`)
  lines.push("  0. Dismiss (ends the agent's turn)")
  return `${lines.join("\n")}\n`
}
