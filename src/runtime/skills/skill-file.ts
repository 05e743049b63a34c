// One SKILL.md: YAML frontmatter (`name`, `description`, anything else kept aside) and the body.
// Loaded only when a skill file is found: the YAML parser costs ~20 ms to import.

import { parseFrontmatter, splitFrontmatter } from "../config/frontmatter.ts"

/** The longest name and description the Agent Skills format allows. */
export const NAME_MAX = 64
export const DESCRIPTION_MAX = 1024

/** Lowercase letters, digits and single hyphens between them (the Agent Skills format). */
const NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/

export interface SkillFile {
  readonly name: string
  readonly description: string
  /** The Markdown after the frontmatter, trimmed. */
  readonly body: string
}

/**
 * Parses a SKILL.md found in the folder `folder`; throws an `Error` whose message says what is wrong
 * and how to fix it.
 * 1. The frontmatter: a `---` block at the very top.
 * 2. Its YAML, which must be a mapping (parse errors name the file's line). A top-level value written
 *    unquoted with `: ` inside (`description: Use it when: ...`), which YAML refuses and many skills
 *    have, is read as the text it was meant to be.
 * 3. `name`: text in the format's spelling, equal to the folder's name.
 * 4. `description`: non-empty text, at most 1024 characters.
 */
export function parseSkillFile(text: string, folder: string): SkillFile {
  // 1. Frontmatter.
  const split = splitFrontmatter(text)
  if (!split)
    throw new Error(
      'no YAML frontmatter: the file must start with a "---" line, then "name:" and "description:", then "---".',
    )

  // 2. YAML.
  const fields = parseFrontmatter(split.yaml)
  if (typeof fields !== "object" || fields === null || Array.isArray(fields))
    throw new Error('the frontmatter must be a YAML mapping with "name" and "description".')
  const { name, description } = fields as Record<string, unknown>

  // 3. Name.
  if (typeof name !== "string" || name === "")
    throw new Error(`the frontmatter has no "name": add "name: ${folder}".`)
  if (name.length > NAME_MAX || !NAME.test(name))
    throw new Error(
      `name "${name}" is not a skill name: use lowercase letters, digits and single hyphens, at most ${NAME_MAX} characters.`,
    )
  if (name !== folder)
    throw new Error(
      `name "${name}" does not match its folder "${folder}": rename the folder or set "name: ${folder}".`,
    )

  // 4. Description.
  if (typeof description !== "string" || description.trim() === "")
    throw new Error(
      'the frontmatter has no "description": say in one or two sentences when to use the skill.',
    )
  if (description.length > DESCRIPTION_MAX)
    throw new Error(
      `the description is ${description.length} characters long; at most ${DESCRIPTION_MAX} are allowed.`,
    )

  return { name, description: description.trim(), body: split.body }
}
