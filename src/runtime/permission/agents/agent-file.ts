// One agent file (`.toolbelt/agents/review.md`, `.opencode/agent/review.md`): YAML frontmatter with the
// agent's settings and rules, and the body, its system prompt. Imported only when such a file exists:
// the YAML parser costs ~20 ms to import.

import { parseFrontmatter, splitFrontmatter } from "../../config/frontmatter.ts"
import { fromConfig } from "../config.ts"
import type { Rule } from "../rule.ts"
import { type AgentDefinition, readAgentDefinition, toolsPermission } from "./agent-definition.ts"

export interface AgentFile {
  /** The file's path below its folder, without `.md` (`review`, `team/review`). */
  readonly name: string
  readonly file: string
  readonly definition: AgentDefinition
  /** The agent's own rules: the legacy `tools` map, then `permission` (which wins). */
  readonly rules: readonly Rule[]
}

/**
 * Parses an agent file; throws an `Error` whose message says what is wrong and how to fix it.
 * 1. The frontmatter, when the file starts with a `---` block (a file without one is all prompt).
 * 2. Its YAML, which must be a mapping.
 * 3. The settings (`description`, `mode`, `model`, `steps`, `hidden`, `disable`), then `tools` and
 *    `permission` as rules whose source is the file.
 * 4. The body is the system prompt (`prompt` in the frontmatter when the body is empty).
 */
export function parseAgentFile(text: string, at: { name: string; file: string; home?: string }): AgentFile {
  // 1. Frontmatter.
  const split = splitFrontmatter(text)
  const body = split ? split.body : text.trim()

  // 2. YAML.
  const fields = split ? (parseFrontmatter(split.yaml) ?? {}) : {}
  if (typeof fields !== "object" || Array.isArray(fields))
    throw new Error('the frontmatter must be a YAML mapping (e.g. "description: Reviews changes").')
  const record = fields as Record<string, unknown>

  // 3. Settings and rules.
  const where = "the frontmatter"
  const definition = readAgentDefinition(record, where)
  const home = at.home === undefined ? {} : { home: at.home }
  const rules = [
    ...fromConfig(toolsPermission(record.tools, where), { origin: at.file, where: "tools", ...home }),
    ...fromConfig(record.permission, { origin: at.file, where: "permission", ...home }),
  ]

  // 4. The prompt.
  const prompt = body || definition.prompt
  return {
    name: at.name,
    file: at.file,
    definition: { ...definition, ...(prompt ? { prompt } : {}) },
    rules,
  }
}
