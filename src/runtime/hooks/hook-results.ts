// What the hook runners do with what a hook returned or threw: validate short-circuits and results,
// copy plain data so a hook cannot change the caller's objects, name failures.
import type { FilePart } from "../../platform/text/content.ts"
import type { Action } from "../permission/rule.ts"
import type { AfterOutput, BeforeOutcome } from "./types.ts"

export function denied({
  tool,
  source,
  reason,
  args,
}: {
  tool: string
  source: string
  reason: string
  args: unknown
}): BeforeOutcome {
  return {
    action: "deny",
    args,
    reason,
    source,
    message: `The call to ${tool} was denied by plugin ${source}: ${reason}`,
  }
}

/** The normalised short-circuit result, or what is wrong with it. */
export function shortCircuit(value: unknown, tool: string): AfterOutput | string {
  if (!isRecord(value)) return "result must be an object"
  const result: AfterOutput = {
    title: value.title === undefined ? tool : (value.title as string),
    output: value.output as string,
    metadata: (value.metadata ?? {}) as Record<string, unknown>,
    attachments: [...((value.attachments ?? []) as FilePart[])],
  }
  return checkResult(result) ?? result
}

export function checkResult(result: AfterOutput): string | undefined {
  if (typeof result.title !== "string") return "title must be a string"
  if (typeof result.output !== "string") return "output must be a string"
  if (!isRecord(result.metadata)) return "metadata must be an object"
  if (!Array.isArray(result.attachments)) return "attachments must be an array"
  for (const file of result.attachments as unknown[]) {
    if (
      !isRecord(file) ||
      file.type !== "file" ||
      typeof file.mime !== "string" ||
      typeof file.url !== "string"
    ) {
      return 'each attachment must be {type: "file", mime, url}'
    }
  }
  return undefined
}

export function isAction(value: unknown): value is Action {
  return value === "allow" || value === "deny" || value === "ask"
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}

/** A deep copy when the value allows one (plain data), else the value itself. */
export function copy<T>(value: T): T {
  try {
    return structuredClone(value)
  } catch {
    return isRecord(value) ? ({ ...value } as T) : value
  }
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

export function stackOf(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error)
}
