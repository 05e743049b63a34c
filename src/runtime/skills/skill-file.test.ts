import { describe, expect, it } from "vitest"
import { DESCRIPTION_MAX, parseSkillFile } from "./skill-file.ts"

const file = (frontmatter: string, body = "Do the thing.") => `---\n${frontmatter}\n---\n${body}\n`

describe("parseSkillFile: what loads", () => {
  it.each([
    ["plain", file("name: pdf\ndescription: Fill PDF forms."), "Fill PDF forms."],
    [
      "quoted, with other fields kept aside",
      file('name: pdf\ndescription: "Fill forms"\nlicense: MIT\nmetadata:\n  v: 1'),
      "Fill forms",
    ],
    ["a folded block", file("name: pdf\ndescription: >\n  Fill\n  forms."), "Fill forms."],
    [
      "CRLF line ends and a byte order mark",
      "\uFEFF---\r\nname: pdf\r\ndescription: Fill forms.\r\n---\r\nDo the thing.\r\n",
      "Fill forms.",
    ],
    [
      "an unquoted `: ` inside the description (YAML refuses it; many skills have it)",
      file("name: pdf\ndescription: Use it when: a PDF must be filled."),
      "Use it when: a PDF must be filled.",
    ],
  ])("%s", (_case, text, description) => {
    const parsed = parseSkillFile(text, "pdf")
    expect(parsed.name).toBe("pdf")
    expect(parsed.description).toBe(description)
    expect(parsed.body).toBe("Do the thing.")
  })

  it("keeps the whole body, a later `---` line included, trimmed", () => {
    const parsed = parseSkillFile(file("name: a\ndescription: d", "\n# Title\n\n---\n\nMore.\n\n"), "a")
    expect(parsed.body).toBe("# Title\n\n---\n\nMore.")
  })
})

describe("parseSkillFile: what is refused, and the message says what to do", () => {
  it.each([
    ["no frontmatter", "# Just markdown\n", /no YAML frontmatter: the file must start with a "---" line/],
    ["frontmatter not at the top", `\n${file("name: a\ndescription: d")}`, /no YAML frontmatter/],
    ["an unclosed frontmatter", "---\nname: a\ndescription: d\n", /no YAML frontmatter/],
    [
      "broken YAML (line of the file)",
      file("name: a\ndescription: [unclosed"),
      /invalid YAML in the frontmatter at line 3: .*double quotes/,
    ],
    [
      "a duplicate key",
      file("name: a\nname: a\ndescription: d"),
      /invalid YAML in the frontmatter at line 3: Map keys must be unique/,
    ],
    ["a list instead of a mapping", file("- name: a"), /must be a YAML mapping/],
    ["an empty frontmatter", "---\n---\nbody", /must be a YAML mapping/],
    ["no name", file("description: d"), /has no "name": add "name: a"/],
    ["a name that is not text", file("name: 12\ndescription: d"), /has no "name"/],
    [
      "a name in capitals",
      file("name: My-Skill\ndescription: d"),
      /is not a skill name: use lowercase letters, digits and single hyphens/,
    ],
    ["a name with a double hyphen", file("name: a--b\ndescription: d"), /is not a skill name/],
    ["a name over 64 characters", file(`name: ${"a".repeat(65)}\ndescription: d`), /at most 64 characters/],
    [
      "a name that is not the folder's",
      file("name: other\ndescription: d"),
      /name "other" does not match its folder "a": rename the folder or set "name: a"/,
    ],
    ["no description", file("name: a"), /has no "description"/],
    ["an empty description", file('name: a\ndescription: "  "'), /has no "description"/],
    ["a description that is a list", file("name: a\ndescription:\n  - x"), /has no "description"/],
    [
      "a description over 1024 characters",
      file(`name: a\ndescription: ${"x".repeat(DESCRIPTION_MAX + 1)}`),
      /is 1025 characters long; at most 1024/,
    ],
  ])("%s", (_case, text, message) => {
    expect(() => parseSkillFile(text, "a")).toThrow(message)
  })
})
