import type { Registrable } from "../registry/tool-set.ts"
import { InvalidTool } from "./invalid/invalid.ts"
import { ListTool } from "./list/list.ts"
import { ReadTool } from "./read/read.ts"
import { WriteTool } from "./write/write.ts"

/** The built-in tools, by the names they are registered under. */
export function builtins(): Record<string, Registrable> {
  return {
    invalid: InvalidTool,
    read: ReadTool,
    write: WriteTool,
    list: ListTool,
  }
}
