import { createInterface } from "node:readline/promises"
import { askedBy } from "../../runtime/permission/asked-by.ts"
import type { AskRequest } from "../../runtime/permission/service.ts"
import type { Decide, Reply } from "../../runtime/permission/simple.ts"
import { unansweredNote, uncheckedOf } from "../../runtime/permission/unchecked.ts"
import type { IO } from "./io.ts"
import { oneAtATime } from "./terminal-turn.ts"

/**
 * Asks the person at the terminal. Only used when stdin is a TTY; the question goes to stderr so
 * stdout keeps only the command's result.
 */
export async function promptForPermission(io: IO, request: AskRequest, signal?: AbortSignal): Promise<Reply> {
  const rl = createInterface({ input: io.stdin, output: io.stderr, terminal: true })
  try {
    const unchecked = uncheckedOf(request.metadata)
    const by = askedBy(request.subagent)
    io.stderr.write(
      `\nPermission requested: ${request.permission} for ${request.patterns.join(", ")}\n` +
        (by ? `  asked by: ${by}\n` : "") +
        (unchecked ? `  why: ${unchecked.reason}\n` : "") +
        (request.always.length
          ? `  "always" would remember: ${request.permission} ${request.always.join(", ")}\n`
          : `  "always" would remember nothing: no pattern matches only this call, so it allows this call once\n`),
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

/**
 * How a command answers permission asks: `--yes` approves once; on a terminal the person is asked;
 * otherwise the ask is rejected, with a note on stderr saying how to allow it.
 */
export function commandDecide(io: IO, command: string, yes: boolean | undefined): Decide {
  if (yes) return async () => "once"
  if (io.stdin.isTTY)
    return (request, options) => oneAtATime(() => promptForPermission(io, request, options.signal))
  return async (request) => {
    const by = askedBy(request.subagent)
    io.stderr.write(
      `toolbelt ${command}: permission ${request.permission} (${request.patterns.join(", ")})${by ? `, asked by ${by},` : ""} needs approval; rejected because stdin is not a terminal. Re-run with --yes to approve, or allow it in toolbelt.json.\n`,
    )
    // Nobody said no, so the model is not told that someone did: it reads what needed approval, why no
    // one was asked, and (for a call the rules could not check) how to write it so they can.
    const note = unansweredNote(request.metadata)
    return {
      unanswered:
        `permission ${request.permission} for ${request.patterns.join(", ")} needs approval, and toolbelt ${command} ` +
        `cannot ask (stdin is not a terminal and --yes was not given).` +
        (note ? ` ${note}` : ` Re-run with --yes to approve it, or allow it in toolbelt.json.`),
    }
  }
}
