// Who asks, in words, for the person deciding: a subagent's ask says which subagent wants it.

import type { AskedBySubagent } from "../../platform/store/record-shapes.ts"

/** `the explore subagent (task: find the config loader)`; undefined for an ask no subagent made. */
export function askedBy(subagent: AskedBySubagent | undefined): string | undefined {
  if (!subagent) return undefined
  return `the ${subagent.agent} subagent (task: ${subagent.description})`
}
