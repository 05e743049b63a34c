// The services of the session tools (todo list, questions, plan mode), carried in `ctx.extra` like
// every tool service (services.ts).

import type { Todo } from "../../platform/store/record-shapes.ts"
import type { Answers, Question } from "../question/question.ts"

export { QuestionRejectedError } from "../question/errors.ts"
export type { Answers, Question, QuestionOption } from "../question/question.ts"
export type { Todo }

/** A session's todo list, kept where every process continuing the session reads it. */
export interface TodoList {
  get(sessionID: string): Todo[]
  /** Replaces the whole list, atomically. */
  set(sessionID: string, todos: readonly Todo[]): void
}

/** The question flow: puts questions to a person, wherever one can answer. */
export interface Questions {
  /**
   * Resolves with the answers (one array of labels per question); throws when the person dismissed
   * the questions or nobody could be asked (the turn stops), or when `signal` aborts.
   */
  ask(
    input: {
      readonly sessionID: string
      readonly questions: readonly Question[]
      readonly tool?: { readonly messageID: string; readonly callID: string }
    },
    options: { readonly signal?: AbortSignal },
  ): Promise<Answers>
}

/** Switches the agent a session runs as (plan mode); the new agent's rules apply from the next call on. */
export interface SessionAgent {
  switch(sessionID: string, agent: string): void
}

const todosInMemory = new Map<string, Todo[]>()

/** Todo lists in this process's memory: the default where the runtime keeps none. */
export const memoryTodos: TodoList = {
  get: (sessionID) => [...(todosInMemory.get(sessionID) ?? [])],
  set: (sessionID, todos) => {
    todosInMemory.set(sessionID, [...todos])
  },
}
