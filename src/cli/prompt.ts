import { createInterface } from "node:readline/promises"
import type { AskRequest } from "../permission/service.ts"
import type { Reply } from "../permission/simple.ts"
import type { IO } from "./io.ts"

/**
 * Asks the person at the terminal. Only used when stdin is a TTY; the question goes to stderr so
 * stdout keeps only the command's result.
 */
export async function promptForPermission(io: IO, request: AskRequest, signal?: AbortSignal): Promise<Reply> {
  const rl = createInterface({ input: io.stdin, output: io.stderr, terminal: true })
  try {
    io.stderr.write(
      `\nPermission requested: ${request.permission} for ${request.patterns.join(", ")}\n` +
        `  "always" would remember: ${request.permission} ${request.always.join(", ")}\n`,
    )
    for (;;) {
      const answer = (
        await rl.question("Allow? [o]nce, [a]lways, [r]eject, or type a reason to reject: ", { signal })
      )
        .trim()
        .toLowerCase()
      if (answer === "o" || answer === "once" || answer === "y" || answer === "yes") return "once"
      if (answer === "a" || answer === "always") return "always"
      if (answer === "r" || answer === "reject" || answer === "n" || answer === "no") return "reject"
      if (answer.length > 1) return { reject: answer }
    }
  } finally {
    rl.close()
  }
}
