import { describe, expect, it } from "vitest"
import { stem } from "./stem.ts"
import { joinedTerms, nameTerms, pieces, terms } from "./terms.ts"

describe("stem", () => {
  it.each([
    [["create", "creates", "creating", "created"], "creat"],
    [["issue", "issues"], "issu"],
    [["query", "queries", "queried", "querying"], "query"],
    [["run", "running", "ran", "runs"], "run"],
    [["list", "lists", "listing", "listed"], "list"],
    [["send", "sends", "sent", "sending"], "send"],
    [["process", "processes"], "process"],
    [["call", "calls", "calling", "called"], "call"],
  ])("folds %j to one form", (words, expected) => {
    for (const word of words) expect(stem(word), word).toBe(expected)
  })

  it("keeps words a suffix rule would break, and other scripts", () => {
    expect(stem("status")).toBe("status")
    expect(stem("this")).toBe("this")
    expect(stem("string")).toBe("string")
    expect(stem("天气")).toBe("天气")
  })
})

describe("terms", () => {
  it("splits identifiers on _ - . / camelCase and digits, keeping short letter-digit wholes", () => {
    expect(pieces("getHTTPResponse2 list_repos create-issue a.b/c")).toEqual([
      "get",
      "http",
      "response",
      "2",
      "list",
      "repos",
      "create",
      "issue",
      "a",
      "b",
      "c",
    ])
    expect(pieces("s3 ec2")).toEqual(["s", "3", "s3", "ec", "2", "ec2"])
  })

  it("drops stop words and words with no intent, and stems", () => {
    expect(terms("Please use the tool to create issues in my repositories")).toEqual([
      "creat",
      "issu",
      "repository",
    ])
  })

  it("keeps stop words in names (list_all_users)", () => {
    expect(nameTerms("list_all_users")).toEqual(["list", "all", "user"])
  })

  it("indexes CJK runs as single characters and bigrams, Latin words beside them as words", () => {
    expect(terms("查询天气 weather")).toEqual(["查", "查询", "询", "询天", "天", "天气", "气", "weather"])
  })

  it("joins adjacent Latin words, for names that write them as one", () => {
    expect(joinedTerms("roll back, log in 查询")).toEqual(["rollback", "backlog", "login"])
  })

  it("gives nothing for emoji, punctuation and empty text", () => {
    expect(terms("🎉 !!! ---")).toEqual([])
    expect(terms("")).toEqual([])
  })
})
