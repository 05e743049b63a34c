import type { z } from "zod"
import {
  LoopGuardError,
  PermissionCorrectedError,
  PermissionDeniedError,
  type PermissionError,
  PermissionRejectedError,
  PermissionUnansweredError,
} from "../permission/errors.ts"
import type { Rule } from "../permission/rule.ts"
import { describeRule } from "../permission/rule-text.ts"
import { type Call, canonicalJson, type DoomLoop } from "./doom-loop.ts"

/** `questions[0].question` from `["questions", 0, "question"]`; `input` for the root. */
export function readablePath(path: readonly PropertyKey[]): string {
  let out = ""
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`
    else if (typeof key === "symbol") out += `[${String(key)}]`
    else if (/^[A-Za-z_$][\w$]*$/.test(key)) out += out ? `.${key}` : key
    else out += `[${JSON.stringify(key)}]`
  }
  return out || "input"
}

/** Every issue of a schema error as `path: message`, joined with `; `. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${readablePath(issue.path)}: ${issue.message}`).join("; ")
}

/**
 * The issues of `input`'s decoding with a field it left out saying so ("required, but missing") instead
 * of Zod's "received undefined"; a tool's own `formatValidationError` gets them so too.
 */
export function explainMissing(issues: readonly z.core.$ZodIssue[], input: unknown): z.core.$ZodIssue[] {
  return issues.map((issue) => {
    if (!isMissing(input, issue.path)) return issue
    const expected = issue.message
      .replace(/^Invalid (input|option): /, "")
      .replace(/, received undefined$/, "")
    return { ...issue, message: `required, but missing (${expected})` }
  })
}

/** Whether the object holding `path`'s last key exists in `input` and has no such key. */
function isMissing(input: unknown, path: readonly PropertyKey[]): boolean {
  if (path.length === 0) return false
  let holder: unknown = input
  for (const key of path.slice(0, -1)) {
    if (typeof holder !== "object" || holder === null) return false
    holder = (holder as Record<PropertyKey, unknown>)[key]
  }
  if (typeof holder !== "object" || holder === null || Array.isArray(holder)) return false
  return (holder as Record<PropertyKey, unknown>)[path[path.length - 1]!] === undefined
}

/** The issue that names a field the tool's schema does not have, and the fields it has there. */
export function unknownKeyIssue(path: readonly PropertyKey[], known: readonly string[]): z.core.$ZodIssue {
  const where = path.length > 1 ? "a field of this object" : "a parameter of this tool"
  const has = known.length
    ? `the ones it takes are ${known.join(", ")}; remove it or use one of those`
    : "it takes none; remove it"
  return {
    code: "unrecognized_keys",
    keys: [String(path[path.length - 1])],
    path: [...path],
    message: `not ${where} (${has})`,
    input: undefined,
  }
}

export function invalidArguments(
  tool: string,
  error: z.ZodError,
  format?: (error: z.ZodError) => string,
): string {
  if (format) return format(error)
  return `The ${tool} tool was called with invalid arguments: ${describeIssues(error)}.\nPlease rewrite the input so it satisfies the expected schema.`
}

export function invalidOutput(tool: string, error: z.ZodError): string {
  return `The ${tool} tool returned an invalid value for its output schema: ${describeIssues(error)}. This is a bug in the tool, not in the call.`
}

export function unknownTool(name: string, available: readonly string[]): string {
  const list = available.length ? available.join(", ") : "(none)"
  return `Model tried to call unavailable tool '${name}'. Available tools: ${list}.`
}

export function staleTool(name: string): string {
  return `The ${name} tool was removed or replaced after this turn's tools were sent, so this call was not run. Call it again with the tools of the next turn.`
}

export const INTERRUPTED = "Tool execution aborted"

export function unstorableOutput(tool: string, reason: string): string {
  return `The ${tool} tool's output was too large to return in full and could not be saved for later reading (${reason}), so the result is not reported. Free space in the data directory or narrow the call.`
}

/** A short, single-paragraph message for a defect (its stack goes to the record, not the model). */
export function defectMessage(tool: string, error: unknown): string {
  const raw = error instanceof Error ? error.message : String(error)
  const message = raw.length > 1000 ? `${raw.slice(0, 1000)}…` : raw
  return message ? message : `The ${tool} tool failed unexpectedly.`
}

/** Input nested past the bound: refused before validation, since every schema walks it recursively. */
export function inputTooDeep(tool: string, depth: number, max: number): string {
  return `The ${tool} tool was called with arguments nested more than ${max} levels deep (found at least ${depth}), so the call was not run. Send the arguments as a flat JSON object, as the tool's schema describes.`
}

/** A NUL byte where the OS takes none (a path, a command): refused before anything was opened or run. */
export function nulByte(tool: string, value: string | undefined): string {
  const what = value === undefined ? "a value" : `the value ${JSON.stringify(value)}`
  return `The ${tool} tool was given ${what}, which contains a NUL byte (\\u0000). File paths, commands and their arguments cannot contain one, so nothing was opened or run. Send it again without the NUL byte.`
}

/** A path the OS refused as too long (ENAMETOOLONG): refused before anything was opened. */
export function pathTooLong(tool: string, length: number | undefined): string {
  const what = length === undefined ? "a path" : `a path of ${length.toLocaleString("en-US")} characters`
  return `The ${tool} tool was given ${what}, longer than the system allows (a file or folder name holds at most 255 bytes, a whole path at most 4,096), so nothing was opened. Send a path within those limits.`
}

/** Arguments a program could not be started with (E2BIG): the value that went into them is too long. */
export function argumentsTooLong(tool: string): string {
  return `The ${tool} tool could not start its program: the arguments it was given are longer than the system allows a program to be started with (on Linux 128 KiB in one argument), so nothing was run. Send a shorter value.`
}

/** The longest call shown in a refusal; the rest of its input is cut. */
const CALL_SHOWN_CHARS = 200

/**
 * The one sentence a loop refusal says: who refused, the call, how often it repeated with the same
 * result, the rule that refused it (with where it was written) and how to change that rule. It begins
 * "The loop guard stopped this call" (`LoopGuardError`'s words) unless a person was asked, and says that
 * a person said no only when one did.
 */
export function loopRefused(args: {
  loop: DoomLoop
  call: Call
  threshold: number
  error: PermissionError
}): string {
  const { loop, call, threshold, error } = args
  const shown = shownCall(call)
  const repeated =
    loop.kind === "repeat"
      ? `it was the ${ordinal(loop.count)} identical call in a row and the ${loop.count - 1} before it got the same result`
      : `it would repeat the cycle ${loop.tools.join(", ")} a ${ordinal(loop.repeats)} time with the same results`
  const rule =
    error instanceof PermissionDeniedError || error instanceof PermissionUnansweredError
      ? error.rule
      : undefined
  const change = `to allow it, set "doom_loop": {"threshold": N} with N above ${threshold}, or "permission": {"doom_loop": "allow"}, in ${configToChange(rule)}`
  const guard = (reason: string) => new LoopGuardError(`${shown}: ${repeated}, and ${reason}`).message
  if (error instanceof PermissionUnansweredError) {
    const rule = error.rule ? `the rule ${describeRule(error.rule)}` : `the doom_loop rule (ask, the default)`
    return guard(
      `${rule} needs a person's approval for that, but no one could be asked; ${change}, or try something else.`,
    )
  }
  if (error instanceof PermissionDeniedError) {
    const rule = error.rule ? `the rule ${describeRule(error.rule)}` : "the doom_loop rules"
    return guard(`${rule} refuses that; ${change}, or try something else.`)
  }
  if (error instanceof PermissionCorrectedError) {
    return `Refused ${shown}: ${repeated}, and the user, asked whether to allow it (doom_loop), said no with this feedback: ${error.feedback}`
  }
  if (error instanceof PermissionRejectedError && error.another) {
    return `Refused ${shown}: ${repeated}, and the user rejected another call of this session while the loop guard asked about this one, which stops this one too.`
  }
  if (error instanceof PermissionRejectedError) {
    return `Refused ${shown}: ${repeated}, and the user, asked whether to allow it (doom_loop), said no; try something else instead of repeating the same calls.`
  }
  return guard(
    `its doom_loop approval was not given (${error.message}); try something else instead of repeating the same calls.`,
  )
}

/**
 * Where to change the loop rule: the file it was written in, the config it was given in, else the user's
 * own toolbelt.json, which always applies (a project's loosens nothing until the project is trusted).
 */
function configToChange(rule: Rule | undefined): string {
  const origin = rule?.source?.origin
  if (
    origin === undefined ||
    origin === "TOOLBELT_PERMISSION" ||
    !/^(\/|[A-Za-z]:[\\/]|the config)/.test(origin)
  )
    return "your ~/.config/toolbelt/toolbelt.json (or the project's toolbelt.json, once the project is trusted)"
  return origin
}

function shownCall(call: Call): string {
  const input = canonicalJson(call.input)
  const shown = input.length > CALL_SHOWN_CHARS ? `${input.slice(0, CALL_SHOWN_CHARS)}…` : input
  return `${call.tool} ${shown}`
}

/** 1st, 2nd, 3rd, 4th, 11th, 21st. */
function ordinal(n: number): string {
  const tens = n % 100
  const suffix =
    tens >= 11 && tens <= 13 ? "th" : n % 10 === 1 ? "st" : n % 10 === 2 ? "nd" : n % 10 === 3 ? "rd" : "th"
  return `${n}${suffix}`
}
