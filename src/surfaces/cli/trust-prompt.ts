// The terminal's trust prompt: what an untrusted project would run or loosen, and the person's answer.
import { createInterface } from "node:readline/promises"
import type { ProjectTrust } from "../../runtime/config/trust/project-trust.ts"
import { Interrupted, type IO } from "./io.ts"
import { contributionLines } from "./trust-text.ts"

/** What the person chose: trust and remember it, trust for this run only, or not trust (the default). */
export type TrustAnswer = "remember" | "once" | "no"

/**
 * Reads one line typed at the prompt. Enter alone is "no": trusting must be a choice, never a
 * default. Anything else unknown is undefined, and the prompt asks again.
 */
export function parseTrustAnswer(line: string): TrustAnswer | undefined {
  const answer = line.trim().toLowerCase()
  if (answer === "" || answer === "n" || answer === "no" || answer === "d") return "no"
  if (answer === "t" || answer === "trust" || answer === "r" || answer === "remember" || answer === "a")
    return "remember"
  if (answer === "o" || answer === "once" || answer === "this time") return "once"
  return undefined
}

/**
 * Asks the person at the terminal whether to trust the project (stderr: stdout keeps the command's
 * result).
 * 1. Say which project, why it asks (never trusted, or changed since it was), and each thing it would
 *    run or loosen with the file it is written in.
 * 2. Ask until the answer is one of the three; Enter alone is "no".
 * 3. Ctrl+C or Ctrl+D ends the command: `Interrupted` (exit 130), nothing of the project has run.
 */
export async function promptForTrust(io: IO, trust: ProjectTrust): Promise<TrustAnswer> {
  // 1. What it would run.
  const why =
    trust.reason === "changed"
      ? `You trusted ${trust.directory} before, but what it would run has changed since:`
      : `${trust.directory} is not trusted. It would run or loosen:`
  io.stderr.write(
    `\n${why}\n${contributionLines(trust.contributions, trust.directory)
      .map((line) => `  ${line}\n`)
      .join("")}` +
      "Until you trust it, none of this is applied: the built-in tools work, and its config may only tighten the rules.\n",
  )

  // 2. The answer.
  const rl = createInterface({ input: io.stdin, output: io.stderr, terminal: true })
  // readline turns Ctrl+C into this event (the terminal is in raw mode), and Ctrl+D into "close".
  const ended = new AbortController()
  rl.on("SIGINT", () => ended.abort())
  rl.on("close", () => ended.abort())
  try {
    for (;;) {
      let line: string
      try {
        line = await rl.question("Trust it? [t]rust and remember, trust [o]nce (this run only), [N]o: ", {
          signal: ended.signal,
        })
      } catch (error) {
        // 3. Ctrl+C / Ctrl+D.
        if (ended.signal.aborted) {
          io.stderr.write("\n")
          throw new Interrupted("interrupted at the trust prompt; nothing from the project ran.")
        }
        throw error
      }
      const answer = parseTrustAnswer(line)
      if (answer) return answer
      io.stderr.write('Type "t" to trust and remember, "o" to trust this run only, or Enter not to trust.\n')
    }
  } finally {
    rl.close()
  }
}
