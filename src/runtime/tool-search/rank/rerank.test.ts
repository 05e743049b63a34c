import { describe, expect, it } from "vitest"
import { parseRerank, rerankPrompt } from "./rerank.ts"

const candidates = ["github_create_issue", "jira_create_issue", "linear_create_issue"]

describe("rerankPrompt", () => {
  it("names the request and each candidate with its server and summary", () => {
    const prompt = rerankPrompt("open a bug in Jira", [
      {
        name: "jira_create_issue",
        description: "Create a Jira issue. Long details.",
        inputSchema: {},
        server: { name: "jira" },
      },
      { name: "notes_add", description: "", inputSchema: {} },
    ])
    expect(prompt).toContain("Request: open a bug in Jira")
    expect(prompt).toContain("- jira_create_issue [jira]: Create a Jira issue.")
    expect(prompt).toContain("- notes_add: (no description)")
  })
})

describe("parseRerank", () => {
  it("takes the order the answer gives", () => {
    expect(parseRerank("jira_create_issue\nlinear_create_issue\ngithub_create_issue", candidates)).toEqual([
      "jira_create_issue",
      "linear_create_issue",
      "github_create_issue",
    ])
  })

  it("reads numbered, bulleted, quoted and JSON answers", () => {
    expect(parseRerank('1. `linear_create_issue`\n2) "jira_create_issue"', candidates)[0]).toBe(
      "linear_create_issue",
    )
    expect(parseRerank('["jira_create_issue", "github_create_issue"]', candidates)).toEqual([
      "jira_create_issue",
      "github_create_issue",
      "linear_create_issue",
    ])
  })

  it("ignores invented names and repeats; unnamed candidates follow in their order", () => {
    expect(parseRerank("made_up_tool\nlinear_create_issue\nlinear_create_issue", candidates)).toEqual([
      "linear_create_issue",
      "github_create_issue",
      "jira_create_issue",
    ])
  })

  it("keeps the original order for junk", () => {
    expect(parseRerank("", candidates)).toEqual(candidates)
    expect(parseRerank("I cannot help with that 🙃", candidates)).toEqual(candidates)
  })
})
