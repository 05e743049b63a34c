import { describe, expect, it } from "vitest"
import { parseAgentFile } from "./agent-file.ts"

const at = { name: "review", file: "/p/.toolbelt/agents/review.md", home: "/home/me" }
const parse = (text: string) => parseAgentFile(text, at)

describe("parseAgentFile", () => {
  it("reads the settings, the rules (tools map first, permission after) and the body as the prompt", () => {
    const agent = parse(
      [
        "---",
        "description: Reviews a change: correctness, then style",
        "mode: subagent",
        "model: anthropic/claude-sonnet-4-5",
        "steps: 12",
        "tools:",
        "  write: false",
        "  bash: false",
        "permission:",
        "  bash:",
        '    "git diff*": allow',
        "  external_directory:",
        '    "~/notes/*": allow',
        "color: blue",
        "---",
        "",
        "You review changes.",
        "Say what is wrong first.",
        "",
      ].join("\n"),
    )
    expect(agent.definition).toEqual({
      description: "Reviews a change: correctness, then style",
      mode: "subagent",
      model: "anthropic/claude-sonnet-4-5",
      steps: 12,
      prompt: "You review changes.\nSay what is wrong first.",
    })
    expect(
      agent.rules.map(({ permission, pattern, action }) => `${permission} ${pattern} ${action}`),
    ).toEqual([
      "edit * deny",
      "bash * deny",
      "bash git diff* allow",
      "external_directory /home/me/notes/* allow",
    ])
    expect(agent.rules[0]?.source).toEqual({ origin: at.file, key: "tools.edit" })
    expect(agent.rules[2]?.source).toEqual({ origin: at.file, key: 'permission.bash["git diff*"]' })
  })

  it("a file without frontmatter is all prompt; an empty body leaves the frontmatter's prompt", () => {
    expect(parse("Just do it.\n").definition).toEqual({ prompt: "Just do it." })
    expect(parse("---\nprompt: From the frontmatter.\n---\n").definition).toEqual({
      prompt: "From the frontmatter.",
    })
    expect(parse("---\n---\n").definition).toEqual({})
  })

  it.each([
    ["---\ndescription: [unclosed\n---\nx", /invalid YAML in the frontmatter at line 2/],
    ["---\n- a\n- b\n---\nx", /must be a YAML mapping/],
    [
      "---\nmode: boss\n---\nx",
      /Invalid mode of the frontmatter: expected one of "primary", "subagent", "all", got "boss"/,
    ],
    [
      "---\nmodel: gpt-5\n---\nx",
      /Invalid model of the frontmatter: expected a model as "provider\/model-id"/,
    ],
    ["---\nsteps: 0\n---\nx", /Invalid steps of the frontmatter: expected a positive whole number/],
    ["---\nhidden: yes please\n---\nx", /Invalid hidden of the frontmatter: expected true or false/],
    ["---\ntools:\n  bash: no way\n---\nx", /Invalid tools.bash of the frontmatter: expected true or false/],
    [
      "---\npermission:\n  bash: sometimes\n---\nx",
      /Invalid permission.bash: expected "allow", "ask" or "deny", got "sometimes"/,
    ],
    ["---\ndescription: 42\n---\nx", /Invalid description of the frontmatter: expected text, got number/],
  ])("refuses %j saying what is wrong", (text, message) => {
    expect(() => parse(text)).toThrow(message)
  })
})
