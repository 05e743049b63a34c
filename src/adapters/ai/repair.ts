import { InvalidToolInputError, NoSuchToolError, type ToolCallRepairFunction, type ToolSet } from "ai"
import { asSentence } from "../../platform/text/sentence.ts"

/** The tool that unparseable calls are re-dispatched to (never offered to the model). */
export const INVALID = "invalid"

/** Longest parse error passed on to the model (the raw input in it can be a whole file). */
const MAX_ERROR = 2000

type ModelToolCall = Parameters<ToolCallRepairFunction<ToolSet>>[0]["toolCall"]

/**
 * Repairs a call the AI SDK could not parse (opencode's rules).
 *
 * 1. An unknown name that differs from exactly one known tool only in case (`Read` → `read`) is
 *    re-dispatched under that name, when its input is JSON. Known: the offered tools, and the
 *    deferred ones a call may name (`known`).
 * 2. Anything else becomes a call of `invalid` with `{tool, error}`: the tool the model meant and why
 *    the call could not be parsed, which settlement records and the model reads as the result.
 * 3. Without an `invalid` tool in the set, the call is left to the SDK (it reports a tool error).
 */
export function repairToolCall(options: {
  /** The tools offered to the model (now, when a function: the list grows as tool_search loads tools). */
  readonly offered: readonly string[] | (() => readonly string[])
  /** Every tool a call may name, offered or not (default: the offered ones). */
  readonly known?: readonly string[]
}): ToolCallRepairFunction<ToolSet> {
  const offered = () => (typeof options.offered === "function" ? options.offered() : options.offered)
  return async ({ toolCall, tools, error }) => {
    if (NoSuchToolError.isInstance(error)) {
      const fixed = matchCase(toolCall.toolName, options.known ?? offered())
      if (fixed) {
        const parsed = parseInput(toolCall.input)
        if (parsed.ok) return { ...toolCall, toolName: fixed }
        return toInvalid(toolCall, fixed, `Invalid input for tool ${fixed}: ${parsed.error}`, tools)
      }
      return toInvalid(toolCall, toolCall.toolName, unknownTool(toolCall.toolName, offered()), tools)
    }
    const message = InvalidToolInputError.isInstance(error) ? error.message : String(error)
    return toInvalid(toolCall, toolCall.toolName, message, tools)
  }
}

/** The offered name equal to `name` but for case, when exactly one exists. */
export function matchCase(name: string, offered: readonly string[]): string | undefined {
  if (offered.includes(name)) return name
  const lower = name.toLowerCase()
  const found = offered.filter((candidate) => candidate.toLowerCase() === lower)
  return found.length === 1 ? found[0] : undefined
}

export function unknownTool(name: string, offered: readonly string[]): string {
  return `Model tried to call unavailable tool '${name}'. Available tools: ${offered.join(", ") || "(none)"}.`
}

function toInvalid(
  toolCall: ModelToolCall,
  tool: string,
  error: string,
  tools: ToolSet,
): ModelToolCall | null {
  if (!Object.hasOwn(tools, INVALID)) return null
  const clipped = error.length > MAX_ERROR ? `${error.slice(0, MAX_ERROR)}…` : error
  return { ...toolCall, toolName: INVALID, input: JSON.stringify({ tool, error: clipped }) }
}

function parseInput(input: string): { ok: true } | { ok: false; error: string } {
  if (input.trim() === "") return { ok: true }
  try {
    JSON.parse(input)
    return { ok: true }
  } catch (error) {
    return {
      ok: false,
      error: `JSON parsing failed: ${asSentence((error as Error).message)} Send the arguments as one JSON object.`,
    }
  }
}
