import { z } from "zod"
import type { FilePart } from "../../runtime/tool/index.ts"
import * as Tool from "../../runtime/tool/index.ts"
import { builtinSchema } from "../../runtime/tool/schema-source.ts"
import { services } from "../../runtime/tool/services.ts"
import { loadText } from "../kit/load-text.ts"
import { expectedPayload, type Outcome, renderBatch } from "./render.ts"

/** How many calls of one batch run (opencode's number); later ones are reported as errors. */
export const MAX_CALLS = 25

/**
 * The part of the output bounds the calls' answers fill together (each an equal share): the rest is
 * left for the lines around them, so that every answer reaches the model without the batch's own
 * result being cut.
 */
const ANSWERS_SHARE = 0.9

/** The name the tool is registered under: a batch may not name it. */
/** Available tools a skipped call names at most. */
const MAX_NAMED = 40

const SELF = "batch"

const parameters = builtinSchema("batch", () =>
  z.object({
    tool_calls: z
      .array(
        z.object({
          tool: z.string().describe("The name of the tool to call"),
          parameters: z
            .record(z.string(), z.unknown())
            .describe("The tool's arguments, as that tool's own schema describes them"),
        }),
      )
      .min(1, "Provide at least one tool call")
      .describe(`The calls to run in parallel (at most ${MAX_CALLS} run)`),
  }),
)
type Parameters = Tool.SchemaOf<typeof parameters>

export interface BatchMetadata extends Record<string, unknown> {
  /** Each entry in order: its number, tool, status, and the call id of its own part when it ran. */
  calls: { n: number; tool: string; status: string; callID?: string; title?: string; error?: string }[]
  succeeded: number
  total: number
}

/**
 * Runs up to 25 tool calls in parallel, each through the whole settlement pipeline as its own tool part.
 *
 * 1. The calls service (a toolbelt gives it to calls that are not themselves a batch's): without it
 *    the batch cannot run.
 * 2. Check each entry: beyond the 25th, `batch` itself, or a tool not offered here is an error that
 *    lists what is; a name differing only in case is repaired.
 * 3. Settle the others at once (their own permission asks, records and bounds; the batch's abort
 *    cancels them all), reporting progress as each ends. Each is bounded to an equal share of the
 *    output bounds, so that all answers fit in the batch's result (a cut one says where its full text is).
 * 4. One refused by a person (or that no one could be asked about) stops the turn once all are done.
 * 5. The result: a summary line, then each call's title and output or error, in order; the calls'
 *    attachments together.
 */
export const BatchTool = Tool.define<Parameters, BatchMetadata>(
  SELF,
  () => ({
    description: loadText(import.meta.url, "description.txt"),
    parameters,
    formatValidationError: (error) =>
      `The batch tool was called with invalid arguments: ${error.issues.map((issue) => `${issue.path.join(".") || "input"}: ${issue.message}`).join("; ")}.\n\n${expectedPayload()}`,
    async execute(params, ctx) {
      // 1. The calls service.
      const calls = services(ctx).calls
      if (!calls)
        throw new Tool.ToolFailure(
          "batch cannot run here: its calls are settled by a toolbelt, and a call made inside a batch cannot start calls of its own. Make the calls one by one instead.",
        )

      // 2. Check each entry.
      const offered = await calls.offered()
      const byLowerCase = new Map<string, string[]>()
      for (const name of offered) {
        const lower = name.toLowerCase()
        byLowerCase.set(lower, [...(byLowerCase.get(lower) ?? []), name])
      }
      const nameOf = (tool: string) => {
        if (offered.includes(tool)) return tool
        const candidates = byLowerCase.get(tool.toLowerCase())
        return candidates?.length === 1 ? candidates[0] : undefined
      }
      // A registry with hundreds of deferred tools would make this list the longest part of the result.
      const available =
        offered.length > MAX_NAMED
          ? `${offered.slice(0, MAX_NAMED).join(", ")} and ${offered.length - MAX_NAMED} more`
          : offered.join(", ") || "(none)"
      const entries = params.tool_calls.map((call, index) => {
        const n = index + 1
        if (index >= MAX_CALLS)
          return {
            n,
            tool: call.tool,
            skip: `Maximum of ${MAX_CALLS} tools allowed in batch; this call was not run.`,
          }
        if (call.tool.toLowerCase() === SELF)
          return {
            n,
            tool: call.tool,
            skip: "batch cannot be nested: put these calls in this batch instead.",
          }
        const name = nameOf(call.tool)
        if (!name)
          return {
            n,
            tool: call.tool,
            skip: `Tool '${call.tool}' is not available to batch. Available tools: ${available}.`,
          }
        return { n, tool: name, input: call.parameters }
      })

      // 3. Settle the rest in parallel.
      let done = 0
      const runnable = entries.filter((entry) => entry.skip === undefined).length
      const outcomes = await Promise.all(
        entries.map(async (entry): Promise<Outcome> => {
          if (entry.skip !== undefined)
            return { n: entry.n, tool: entry.tool, status: "skipped", error: entry.skip }
          const share = ANSWERS_SHARE / runnable
          const settled = await calls.settle({ tool: entry.tool, input: entry.input, share }, entry.n)
          done++
          ctx.metadata({ title: `Batch: ${done}/${runnable} calls done` })
          return { n: entry.n, tool: entry.tool, ...settled }
        }),
      )

      // 4. A person's "no" stops the turn.
      const refused = outcomes.find(
        (outcome): outcome is Extract<Outcome, { status: "error" }> =>
          outcome.status === "error" && outcome.blocked,
      )
      if (refused) throw calls.refusal(refused)

      // 5. The result.
      const succeeded = outcomes.filter((outcome) => outcome.status === "completed").length
      const attachments: FilePart[] = outcomes.flatMap((outcome) =>
        outcome.status === "completed" ? [...outcome.attachments] : [],
      )
      return {
        title: `Batch execution (${succeeded}/${outcomes.length} successful)`,
        output: renderBatch(outcomes),
        metadata: {
          calls: outcomes.map((outcome) => ({
            n: outcome.n,
            tool: outcome.tool,
            status: outcome.status,
            ...("callID" in outcome ? { callID: outcome.callID } : {}),
            ...(outcome.status === "completed" ? { title: outcome.title } : { error: outcome.error }),
          })),
          succeeded,
          total: outcomes.length,
        },
        ...(attachments.length ? { attachments } : {}),
      }
    },
  }),
  // Offered only where the project's config turns it on (`"batch": true`; opencode's `experimental.batch_tool`).
  {
    // Off unless config turns it on (as opencode), and then `toolbelt tools` says how.
    available: (env) =>
      services({ extra: env.extra ?? {} }).config.batch === true || {
        reason:
          'batch is off: set "batch": true in toolbelt.json, or opencode\'s "experimental": {"batch_tool": true}, to offer it',
      },
  },
)
