import type { ChildSettlement } from "../../runtime/tool/services.ts"

/** How one entry of a batch ended: not run (`skipped`, with why), or as settlement answered it. */
export type Outcome =
  | { readonly n: number; readonly tool: string; readonly status: "skipped"; readonly error: string }
  | ({ readonly n: number; readonly tool: string } & ChildSettlement)

/** The payload shape, shown when the arguments do not fit it. */
export function expectedPayload(): string {
  return [
    "Expected payload format:",
    '  {"tool_calls": [{"tool": "<tool name>", "parameters": {<that tool\'s arguments>}}, ...]}',
    "For example:",
    '  {"tool_calls": [{"tool": "read", "parameters": {"filePath": "/abs/path/a.ts"}}, {"tool": "grep", "parameters": {"pattern": "TODO"}}]}',
  ].join("\n")
}

/**
 * The batch's text: a summary line first (it survives when the text is cut), then each call in order,
 * as `<call n tool status title>` around its output or error.
 */
export function renderBatch(outcomes: readonly Outcome[]): string {
  const succeeded = outcomes.filter((outcome) => outcome.status === "completed").length
  const failed = outcomes.length - succeeded
  const summary =
    failed === 0
      ? `All ${outcomes.length} calls completed.`
      : `${succeeded}/${outcomes.length} calls completed; ${failed} failed (${outcomes
          .filter((outcome) => outcome.status !== "completed")
          .map((outcome) => `#${outcome.n} ${outcome.tool}`)
          .join(", ")}).`
  const sections = outcomes.map((outcome) => {
    const title = outcome.status === "completed" && outcome.title ? ` title=${attribute(outcome.title)}` : ""
    const body = outcome.status === "completed" ? outcome.output : `Error: ${outcome.error}`
    return `<call n="${outcome.n}" tool=${attribute(outcome.tool)} status="${outcome.status}"${title}>\n${body}\n</call>`
  })
  return [summary, ...sections].join("\n\n")
}

function attribute(value: string): string {
  return JSON.stringify(value)
}
