import { isPromptEnd, type PromptEnd } from "../../compose/fleet.ts"
import { askedBy } from "../../runtime/permission/asked-by.ts"
import type { AskRequest } from "../../runtime/permission/service.ts"
import type { Decide, Reply } from "../../runtime/permission/simple.ts"
import { unansweredNote, uncheckedOf } from "../../runtime/permission/unchecked.ts"
import { type AskPolicy, howToLift } from "./ask-lift.ts"
import { type IO, isTerminal } from "./io.ts"
import type { CommandStop } from "./stop-signal.ts"
import { terminalLines } from "./terminal-line.ts"
import { oneAtATime } from "./terminal-turn.ts"

/** What the prompt says when it did not understand an answer: every answer it takes. */
export const PERMISSION_ANSWERS =
  'Type "o" to allow once, "a" to allow always, "r" to reject, or a reason to reject (more than one character, sent to the model).'

/**
 * Reads one line typed at the permission prompt: once (`o`, `y`, ...), always (`a`), reject (`r`, `n`,
 * ...), or a reason to reject (any other text of more than one character). Undefined (asked again,
 * saying what it takes): an empty line, or one character it does not know.
 */
export function parsePermissionAnswer(line: string): Reply | undefined {
  const text = line.trim()
  const answer = text.toLowerCase()
  if (answer === "o" || answer === "once" || answer === "y" || answer === "yes") return "once"
  if (answer === "a" || answer === "always") return "always"
  if (answer === "r" || answer === "reject" || answer === "n" || answer === "no") return "reject"
  if (text.length > 1) return { reject: text }
  return undefined
}

/**
 * Asks the person at the terminal (stderr: stdout keeps only the command's result). Only used when
 * stdin is a TTY.
 * 1. Say what is asked, who asked, and what "always" would remember.
 * 2. Ask until the answer is understood, saying what it takes after one that is not.
 * 3. Ctrl+C stops the command (`stop`: the call is interrupted, the command exits 130); Ctrl+D rejects,
 *    as "r" does. A command already stopped asks nothing.
 * 4. `signal` (the ask ended some other way: answered on another instance, withdrawn) closes the
 *    prompt: what it showed is erased and one line says who answered (`endedNote`).
 */
export async function promptForPermission(
  io: IO,
  request: AskRequest,
  stop: CommandStop,
  signal?: AbortSignal,
): Promise<Reply> {
  if (stop.signal.aborted || signal?.aborted) return stopped
  const lines = terminalLines(io, signal ? AbortSignal.any([stop.signal, signal]) : stop.signal)
  try {
    // 1. What is asked.
    const unchecked = uncheckedOf(request.metadata)
    const by = askedBy(request.subagent)
    lines.write(
      `\nPermission requested: ${request.permission} for ${request.patterns.join(", ")}\n` +
        (by ? `  asked by: ${by}\n` : "") +
        (unchecked ? `  why: ${unchecked.reason}\n` : "") +
        (request.always.length
          ? `  "always" would remember: ${request.permission} ${request.always.join(", ")}\n`
          : `  "always" would remember nothing: no pattern matches only this call, so it allows this call once\n`),
    )
    for (;;) {
      // 2. The answer.
      const typed = await lines.read("Allow? [o]nce, [a]lways, [r]eject, or type a reason to reject: ")
      if (typed.kind === "line") {
        const reply = parsePermissionAnswer(typed.text)
        if (reply) return reply
        lines.write(`${PERMISSION_ANSWERS}\n`)
        continue
      }
      // 3. The keys.
      if (typed.kind === "end") return "reject"
      if (typed.kind === "interrupt") stop.interrupt("the permission prompt")
      // 4. Ended elsewhere.
      else if (!stop.signal.aborted && isPromptEnd(signal?.reason)) {
        lines.erase(
          endedNote(`Permission ${request.permission} for ${request.patterns.join(", ")}`, signal.reason),
        )
      }
      return stopped
    }
  } finally {
    lines.close()
  }
}

/**
 * The one line a prompt closed by something else leaves: `<what>: answered on another instance: once`,
 * `answered elsewhere` (another surface of this process), or withdrawn.
 */
export function endedNote(what: string, end: PromptEnd): string {
  if (end.elsewhere) {
    return end.outcome === "dismissed"
      ? `${what}: dismissed on another instance`
      : `${what}: answered on another instance: ${end.outcome}`
  }
  if (end.outcome === "reject" || end.outcome === "dismissed") {
    return `${what}: withdrawn (it ended before it was answered here)`
  }
  return `${what}: answered elsewhere: ${end.outcome}`
}

/**
 * The reply to an ask whose command was stopped: never used in practice, because stopping the command
 * aborts the call, which withdraws the ask before any reply could reach it.
 */
const stopped: Reply = { unanswered: "the command was stopped before the ask was answered." }

/**
 * How a command answers permission asks: `--yes` approves once; on a terminal the person is asked (and
 * Ctrl+C there is `stop`'s); otherwise the ask is rejected as unanswered. The call's error says what
 * needed approval and what would really lift it (`howToLift`: the rule that asked and its file, from
 * `policy`, the toolbelt's once it is open), and the command prints that error: nothing is printed
 * here, so the refusal is said once.
 */
export function commandDecide(
  io: IO,
  command: string,
  yes: boolean | undefined,
  stop: CommandStop,
  policy: () => AskPolicy | undefined = () => undefined,
): Decide {
  if (yes) return async () => "once"
  if (isTerminal(io, "stdin"))
    return (request, options) => oneAtATime(() => promptForPermission(io, request, stop, options.signal))
  return async (request) => {
    // Nobody said no, so the model is not told that someone did: it reads what needed approval, why no
    // one was asked, and (for a call the rules could not check) how to write it so they can.
    const by = askedBy(request.subagent)
    const note = unansweredNote(request.metadata)
    return {
      unanswered:
        `permission ${request.permission} for ${request.patterns.join(", ")}${by ? `, asked by ${by},` : ""} needs approval, and toolbelt ${command} ` +
        `cannot ask (stdin is not a terminal and --yes was not given).` +
        ` ${note ?? howToLift(policy(), request)}`,
    }
  }
}
