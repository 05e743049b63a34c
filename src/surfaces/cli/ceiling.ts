// `serve --agent X` and `mcp --agent X`: X is a ceiling, so its name must be known before anything
// starts; an unknown one is the person's typo, said as a usage error with the agents there are.

import { UnknownAgentError } from "../../runtime/permission/agents/agent.ts"
import { UsageError } from "./io.ts"

/** Rethrows an unknown agent (the ceiling's) as a usage error; anything else as it is. */
export function unknownAgentIsUsage(error: unknown): never {
  if (error instanceof UnknownAgentError) throw new UsageError(error.message, { help: false })
  throw error
}
