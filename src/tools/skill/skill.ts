import { basename, dirname, join } from "node:path"
import { z } from "zod"
import { canonicalPath } from "../../platform/fs/canonical-path.ts"
import { asSentence } from "../../platform/text/sentence.ts"
import * as Tool from "../../runtime/tool/index.ts"
import { builtinSchema } from "../../runtime/tool/schema-source.ts"
import { services } from "../../runtime/tool/services.ts"
import { READS_ONLY } from "../kit/declarations.ts"
import { checkExternalDirectory } from "../kit/external-directory.ts"
import { loadText } from "../kit/load-text.ts"
import { sampleFiles } from "./sample-files.ts"

/** How many of a skill's files the result lists (opencode's number). */
export const FILE_SAMPLE = 10

const parameters = builtinSchema("skill", () =>
  z.object({
    name: z
      .string()
      .describe("The name of the skill to load, exactly as it is listed in this tool's description"),
  }),
)
type Parameters = Tool.SchemaOf<typeof parameters>

export interface SkillMetadata extends Record<string, unknown> {
  name: string
  /** The skill's folder, where it really is (every symbolic link resolved). */
  dir: string
}

type Listed = readonly { readonly name: string; readonly description: string }[]

/** The tool's description: what it does, then every skill the project sees (name and description). */
export function describeSkills(skills: Listed): string {
  const list = skills.length
    ? `Available skills:\n${skills.map((skill) => `- ${skill.name}: ${skill.description.replace(/\s+/g, " ")}`).join("\n")}`
    : "No skills are currently available."
  return loadText(import.meta.url, "description.txt").replace("{skills}", list)
}

/**
 * Loads an Agent Skill (a folder with a SKILL.md) into the conversation. Offered only where the project
 * sees a skill.
 *
 * 1. Find the skill among those the project sees (`skills` service); an unknown name fails, listing them.
 * 2. Ask `skill` for the name (always: the name).
 * 3. Ask `external_directory` as `read` does, on real paths resolved now: for the folder when it really
 *    is outside the project (its files are listed), and for SKILL.md when it really is somewhere else
 *    outside. The user's own skill folders are pre-approved by the policy; a project's are not.
 * 4. Read its SKILL.md again, from the real path just decided on (it may have changed since start-up);
 *    one that no longer parses fails.
 * 5. Sample up to 10 files of its folder (hidden ones included, links not followed, SKILL.md left out).
 * 6. Shape the result as opencode does: the instructions, the base directory, the sampled files.
 */
/** Why `skill` is not offered: no skill was found, and where one would be. */
export const NO_SKILLS =
  "no Agent Skills were found: add a folder with a SKILL.md (frontmatter: name, description) under .toolbelt/skills/, .opencode/skill/ or .claude/skills/ of the project, or under ~/.config/toolbelt/skills/; toolbelt skills lists what is found"

export const SkillTool = Tool.define<Parameters, SkillMetadata>(
  "skill",
  async (init) => {
    const known = services({ extra: init?.extra ?? {} }).skills?.skills ?? []
    return {
      description: describeSkills(known),
      parameters,
      async execute(params, ctx) {
        const catalog = services(ctx).skills

        // 1. Find it.
        const skill = catalog?.get(params.name)
        if (!catalog || !skill) {
          const names = (catalog?.skills ?? []).map((each) => each.name)
          throw new Tool.ToolFailure(
            `Skill "${params.name}" not found. ${names.length ? `Available skills: ${names.join(", ")}.` : "No skills are available in this project."}`,
          )
        }

        // 2. Permission.
        await ctx.ask({
          permission: "skill",
          patterns: [skill.name],
          always: [skill.name],
          metadata: { name: skill.name, dir: skill.dir },
        })

        // 3. Outside the project: a path like any other.
        // The folder where it really is (the base directory the model is given), and SKILL.md likewise.
        const base =
          (await checkExternalDirectory(ctx, skill.dir, { kind: "directory" })).resolved ?? skill.dir
        let file = await canonicalPath(skill.file)
        if (dirname(file) !== base) file = (await checkExternalDirectory(ctx, file)).resolved ?? file

        // 4. The instructions as they are now.
        let body: string
        try {
          const loaded = await catalog.load(skill.name, { from: file })
          if (!loaded) throw new Error("it is no longer listed")
          body = loaded.body
        } catch (error) {
          throw new Tool.ToolFailure(
            `Skill "${skill.name}" could not be loaded from ${skill.file}: ${asSentence((error as Error).message)} Fix the file, or pick another skill.`,
          )
        }

        // 5. Some of its files.
        const skip = join(base, basename(skill.file))
        const { files, more } = await sampleFiles(base, { limit: FILE_SAMPLE, skip })

        // 6. The result.
        const output = [
          `<skill_content name="${skill.name}">`,
          `# Skill: ${skill.name}`,
          "",
          body,
          "",
          `Base directory for this skill: ${base}`,
          "Relative paths in this skill (scripts, references, templates) are relative to this base directory.",
          ...(more
            ? [`Note: the file list is sampled (the first ${FILE_SAMPLE} files; the folder holds more).`]
            : []),
          "",
          "<skill_files>",
          ...files.map((file) => `<file>${file}</file>`),
          "</skill_files>",
          "</skill_content>",
        ].join("\n")
        return {
          title: `Loaded skill: ${skill.name}`,
          output,
          metadata: { name: skill.name, dir: base },
        }
      },
    }
  },
  {
    annotations: READS_ONLY,
    // Offered where the project sees at least one skill: an empty list is nothing to call, and
    // `toolbelt tools` says so under "Not offered", with where a skill would be found.
    available: (env) =>
      (services({ extra: env.extra ?? {} }).skills?.skills.length ?? 0) > 0 || { reason: NO_SKILLS },
  },
)
