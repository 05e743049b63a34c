import { z } from "zod"
import * as Tool from "../../runtime/tool/index.ts"
import { builtinSchema } from "../../runtime/tool/schema-source.ts"
import type { Answers, Question } from "../../runtime/tool/session-services.ts"
import { personToAsk, WHERE_SOMEONE_ANSWERS } from "../kit/ask-the-person.ts"
import { loadText } from "../kit/load-text.ts"

const parameters = builtinSchema("question", () => {
  const option = z.object({
    label: z
      .string()
      .trim()
      .min(1)
      .describe("The choice as the user sees it and as the answer holds it (1-5 words)"),
    description: z.string().describe("What choosing it means"),
  })

  const question = z
    .object({
      question: z.string().trim().min(1).describe("The complete question"),
      header: z
        .string()
        .trim()
        .min(1)
        .describe("A very short label for the question (30 characters at most)"),
      options: z.array(option).describe("The choices, the recommended one first"),
      multiple: z.boolean().optional().describe("true: the user may pick several options (default: one)"),
      custom: z
        .boolean()
        .optional()
        .describe("false: only the options may be picked (default: the user may also type an answer)"),
    })
    .superRefine((question, check) => {
      if (question.custom === false && question.options.length === 0)
        check.addIssue({
          code: "custom",
          path: ["options"],
          message: "a question that allows only its options needs at least one option",
        })
      const seen = new Set<string>()
      question.options.forEach((option, index) => {
        if (seen.has(option.label))
          check.addIssue({
            code: "custom",
            path: ["options", index, "label"],
            message: `two options are labelled "${option.label}": give each its own label`,
          })
        seen.add(option.label)
      })
    })
  return z.object({
    questions: z.array(question).min(1).describe("The questions to ask, in the order they are asked"),
  })
})
type Parameters = Tool.SchemaOf<typeof parameters>

export interface QuestionMetadata extends Record<string, unknown> {
  answers: Answers
}

/**
 * The `question` tool: asks the user and waits for the answers. Offered only where someone can
 * answer (a terminal, an MCP client that shows forms, a library user listening on the bus).
 *
 * 1. Ask `question` (pattern and always `*`): the defaults deny it except to the primary agents.
 * 2. Put the questions to the person through the question flow; a dismissal (or nobody to ask) fails
 *    the call and stops the turn.
 * 3. Shape: each question with its answer (`"Unanswered"` when left empty).
 */
export const QuestionTool = Tool.define<Parameters, QuestionMetadata>(
  "question",
  () => ({
    description: loadText(import.meta.url, "description.txt"),
    parameters,
    async execute(params, ctx) {
      // 1. Ask; someone must be there to answer.
      const askThePerson = await personToAsk(
        ctx,
        "question",
        "No one can answer questions here: go on with what you know.",
      )

      // 2. The questions.
      const asked: Question[] = params.questions
      const answers = await askThePerson(asked)

      // 3. Shape.
      const count = asked.length
      return {
        title: `Asked ${count} question${count === 1 ? "" : "s"}`,
        output: answeredText(asked, answers),
        metadata: { answers },
      }
    },
  }),
  WHERE_SOMEONE_ANSWERS,
)

/** `User has answered your questions: "Q1"="A, B", "Q2"="Unanswered". You can now continue …` */
export function answeredText(questions: readonly Question[], answers: Answers): string {
  const pairs = questions.map((question, index) => {
    const answer = answers[index]?.length ? answers[index]!.join(", ") : "Unanswered"
    return `"${question.question}"="${answer}"`
  })
  return `User has answered your questions: ${pairs.join(", ")}. You can now continue with the user's answers in mind.`
}
