// The terminal is one person: prompts (permission asks, questions) take turns, never interleave.

let last: Promise<unknown> = Promise.resolve()

/** Runs `prompt` once every prompt started before it has finished. */
export function oneAtATime<T>(prompt: () => Promise<T>): Promise<T> {
  const turn = last.then(prompt, prompt)
  last = turn.catch(() => {})
  return turn
}
