import type { Registrable } from "../registry/tool-set.ts"
import { InvalidTool } from "./invalid/invalid.ts"

/** The built-in tools, by the names they are registered under. */
export function builtins(): Record<string, Registrable> {
  return {
    invalid: InvalidTool,
  }
}
