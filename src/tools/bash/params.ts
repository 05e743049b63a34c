// The bash tool's parameters, shared by its declaration (bash.ts) and its work (execute.ts).
import { z } from "zod"
import type * as Tool from "../../runtime/tool/index.ts"
import { builtinSchema } from "../../runtime/tool/schema-source.ts"
import { DEFAULT_READY_TIMEOUT_MS, DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS } from "../kit/shell-settings.ts"

export const parameters = builtinSchema("bash", () =>
  z.object({
    command: z.string().min(1).describe("The command to run, as a shell script (one line or several)."),
    description: z
      .string()
      .optional()
      .describe("What the command does, in 5-10 words, e.g. 'Run the unit tests' or 'Install dependencies'."),
    workdir: z
      .string()
      .optional()
      .describe(
        "Directory to run the command in, absolute or relative to the project directory (default: the project directory). Use this instead of `cd <dir> &&`.",
      ),
    timeout: z
      .number()
      .int()
      .positive()
      .optional()
      .describe(
        `Time limit in milliseconds (default ${DEFAULT_TIMEOUT_MS}, at most ${MAX_TIMEOUT_MS} unless configured otherwise). The whole process tree is killed when it passes. Not for background jobs.`,
      ),
    run_in_background: z
      .boolean()
      .optional()
      .describe(
        "Start the command as a background job and return its job id at once, for servers, watchers and other long-running processes. Read its output with bash_output and stop it with bash_kill.",
      ),
    ready_port: z
      .number()
      .int()
      .min(1)
      .max(65535)
      .optional()
      .describe(
        "With run_in_background: wait until this TCP port on 127.0.0.1 (or ::1) accepts connections before returning.",
      ),
    ready_pattern: z
      .string()
      .min(1)
      .optional()
      .describe(
        "With run_in_background: wait until the job's output matches this regular expression (JavaScript syntax), e.g. 'Listening on|ready in'.",
      ),
    ready_timeout: z
      .number()
      .int()
      .positive()
      .optional()
      .describe(
        `With ready_port or ready_pattern: how long to wait for readiness, in milliseconds (default ${DEFAULT_READY_TIMEOUT_MS}).`,
      ),
  }),
)
export type Parameters = Tool.SchemaOf<typeof parameters>

export type BashParams = z.infer<Parameters>
