// The shapes of the question flow: what a tool asks a person, and what comes back.

/** One choice of a question. */
export interface QuestionOption {
  /** What the person picks, and what the answer holds (1-5 words). */
  readonly label: string
  /** What picking it means. */
  readonly description: string
}

/** One question put to the person. */
export interface Question {
  /** The full question. */
  readonly question: string
  /** A very short label for it (shown as the question's title; about 30 characters). */
  readonly header: string
  readonly options: readonly QuestionOption[]
  /** The person may pick several options (default: one). */
  readonly multiple?: boolean
  /** The person may type an answer of their own instead of a label (default: true). */
  readonly custom?: boolean
}

/** The labels picked (or typed) for each question, in the order of the questions; empty: unanswered. */
export type Answers = readonly (readonly string[])[]

/** A pending question request: what the person answering sees (and the `question.asked` payload). */
export interface QuestionRequest {
  /** `que_…`, time-sortable. */
  readonly id: string
  readonly sessionID: string
  readonly questions: readonly Question[]
  /** The call that asks. */
  readonly tool?: { readonly messageID: string; readonly callID: string }
  /** Epoch ms. */
  readonly time: number
}

/**
 * What answers a request: the answers, a dismissal (`"dismiss"`: the person declined to answer, which
 * stops the turn), or `unanswered`: nobody could be asked, and why.
 */
export type QuestionReply = Answers | "dismiss" | { readonly unanswered: string }

/** Answers the questions of a surface that has a person at hand (a terminal prompt, a test). */
export type AnswerQuestions = (
  request: QuestionRequest,
  options: { signal?: AbortSignal },
) => Promise<QuestionReply>
