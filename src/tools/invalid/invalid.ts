import { z } from "zod"
import * as Tool from "../../runtime/tool/index.ts"
import { builtinSchema } from "../../runtime/tool/schema-source.ts"
import { loadText } from "../kit/load-text.ts"

const parameters = builtinSchema("invalid", () =>
  z.object({
    tool: z.string().describe("The tool the model tried to call"),
    error: z.string().describe("Why the call could not be parsed or validated"),
  }),
)

/**
 * Where calls land that could not be parsed or validated before dispatch. Never offered to a model:
 * it only turns a broken call into a result the model can read.
 */
export const InvalidTool = Tool.define(
  "invalid",
  () => ({
    description: loadText(import.meta.url, "description.txt"),
    parameters,
    async execute(params) {
      return {
        title: "Invalid Tool",
        output: `The arguments provided to the tool are invalid: ${params.error}`,
        metadata: {},
      }
    },
  }),
  { available: () => false },
)
