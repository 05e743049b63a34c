import { describe, expect, it } from "vitest"
import { buildBm25Index, buildToolIndex, type SearchDoc } from "./index.ts"

const object = (properties: Record<string, unknown> = {}) => ({ type: "object", properties })

function doc(server: string, tool: string, description: string, properties = {}, about?: string): SearchDoc {
  return {
    name: `${server}_${tool}`,
    description,
    inputSchema: object(properties),
    server: { name: server, ...(about ? { description: about } : {}) },
  }
}

const docs: SearchDoc[] = [
  doc(
    "github",
    "create_issue",
    "Create a new issue in a GitHub repository.",
    {
      owner: { type: "string", description: "Repository owner" },
      title: { type: "string" },
    },
    "GitHub API: repositories, issues, pull requests.",
  ),
  doc("github", "list_pull_requests", "List pull requests in a repository."),
  doc("github", "search_code", "Search for code across GitHub repositories."),
  doc(
    "gitlab",
    "create_issue",
    "Create a new issue in a project.",
    {},
    "GitLab API: projects, issues, merge requests.",
  ),
  doc("gitlab", "create_merge_request", "Open a merge request."),
  doc(
    "slack",
    "post_message",
    "Post a message to a Slack channel.",
    {
      channel_id: { type: "string", description: "The channel" },
    },
    "Slack workspace messaging.",
  ),
  doc("slack", "list_channels", "List the channels of the workspace."),
  doc("weather", "get_forecast", "查询城市天气预报。返回温度和湿度。", {
    city: { type: "string", description: "城市名称" },
  }),
  doc("maps", "directions", "Get directions between two places."),
  doc("fs", "read_file", "Read the complete contents of a file from the file system."),
  doc("fs", "write_file", "Create a new file or overwrite an existing one."),
  doc("browser", "take_screenshot", "Capture a PNG of the current page."),
  doc("trello", "get_my_cards", "Fetch the cards assigned to the current member."),
  doc("trello", "get_card", "Get one card by id."),
  doc("ci", "run_rollback_pipeline", "Roll a project back to an earlier deploy."),
  doc("db", "run_query", "Execute a read-only SQL statement against PostgreSQL."),
  { name: "bare", description: "", inputSchema: {} },
]

const ours = buildToolIndex(docs)
const names = (query: string, limit = 5) => ours.search(query, limit).map((hit) => hit.name)

describe("buildToolIndex", () => {
  it("ranks the tool whose name the query spells first", () => {
    expect(names("create issue")[0]).toMatch(/_create_issue$/)
    expect(names("read a file")[0]).toBe("fs_read_file")
  })

  it("a query naming the server ranks its tool first among near-duplicates", () => {
    expect(names("create an issue on gitlab")[0]).toBe("gitlab_create_issue")
    expect(names("create an issue on github")[0]).toBe("github_create_issue")
  })

  it("matches inflections (stemming)", () => {
    expect(names("creating issues")[0]).toMatch(/_create_issue$/)
    expect(names("posted messages")[0]).toBe("slack_post_message")
  })

  it("matches synonyms, below the word itself", () => {
    expect(names("send a chat message")[0]).toBe("slack_post_message")
    expect(names("screenshot of the browser")[0]).toBe("browser_take_screenshot")
    expect(names("open a pull request on gitlab")[0]).toBe("gitlab_create_merge_request")
    expect(names("database query")[0]).toBe("db_run_query")
  })

  it("adjacent query words match a name's compound (roll back → rollback)", () => {
    expect(names("rollback")[0]).toBe("ci_run_rollback_pipeline")
    expect(ours.search("roll back production", 1)[0]!.name).toBe("ci_run_rollback_pipeline")
  })

  it("a stop word counts where a tool's name holds it", () => {
    expect(names("show my cards")[0]).toBe("trello_get_my_cards")
  })

  it("Chinese query finds the Chinese-described tool", () => {
    expect(names("天气预报")[0]).toBe("weather_get_forecast")
    expect(names("查询北京的天气")[0]).toBe("weather_get_forecast")
  })

  it("empty, stop-word-only and emoji queries give []", () => {
    expect(ours.search("", 5)).toEqual([])
    expect(ours.search("please use the tool to", 5)).toEqual([])
    expect(ours.search("🎉🎉", 5)).toEqual([])
    expect(ours.search("issue", 0)).toEqual([])
  })

  it("returns at most limit hits, best first, filtered by accept", () => {
    const hits = ours.search("create", 2)
    expect(hits).toHaveLength(2)
    expect(hits[0]!.score).toBeGreaterThanOrEqual(hits[1]!.score)
    const accepted = ours.search("create issue", 5, (name) => name.startsWith("gitlab"))
    expect(accepted.every((hit) => hit.name.startsWith("gitlab"))).toBe(true)
    expect(accepted[0]!.name).toBe("gitlab_create_issue")
  })

  it("covers a whole task's intents in its top results", () => {
    const task =
      "Find the code that reads the config, open an issue on GitHub about it, then post a message to the team's Slack channel and take a screenshot of the page"
    const top = names(task, 5)
    expect(top).toEqual(
      expect.arrayContaining(["github_create_issue", "slack_post_message", "browser_take_screenshot"]),
    )
  })
})

describe("robustness", () => {
  const huge = "Deletes a record. " + "lorem ipsum dolor sit amet ".repeat(800)
  const wide = Object.fromEntries(
    Array.from({ length: 500 }, (_, i) => [`field${i}`, { type: "string", description: "a field" }]),
  )
  const odd: SearchDoc[] = [
    ...docs,
    doc("big", "delete_record", huge),
    doc("wide", "save_form", "Save a form.", wide),
    { name: "weird__name--x_", description: "Handles 🎉 emoji and ümlauts.", inputSchema: {} },
    {
      name: "nested",
      description: "Nested.",
      inputSchema: {
        type: "object",
        properties: { a: { type: "object", properties: { b: { items: { properties: { deep: {} } } } } } },
      },
    },
  ]
  const index = buildToolIndex(odd)

  it("a 20 KB description neither breaks the index nor drowns the others", () => {
    expect(index.search("lorem ipsum", 3)[0]!.name).toBe("big_delete_record")
    expect(index.search("delete a record", 1)[0]!.name).toBe("big_delete_record")
    expect(index.search("create issue", 1)[0]!.name).toMatch(/_create_issue$/)
  })

  it("a schema with hundreds of properties, odd names, nested schemas and no description are searchable", () => {
    expect(index.search("save form", 1)[0]!.name).toBe("wide_save_form")
    expect(index.search("ümlauts", 1)[0]!.name).toBe("weird__name--x_")
    expect(index.search("bare", 1)[0]!.name).toBe("bare")
    expect(index.size).toBe(odd.length)
  })

  it("answers a 100-word query and non-Latin scripts", () => {
    const long = Array.from(
      { length: 100 },
      (_, i) => ["create", "issue", "file", "weather", "message"][i % 5],
    ).join(" ")
    expect(index.search(long, 10).length).toBeGreaterThan(0)
    expect(index.search("Привет мир", 5)).toEqual([])
    expect(index.search("ファイルを読む", 5)).toEqual([])
  })

  it("an empty corpus answers nothing", () => {
    expect(buildToolIndex([]).search("anything", 5)).toEqual([])
    expect(buildToolIndex([]).size).toBe(0)
  })
})

describe("buildBm25Index", () => {
  it("is plain BM25: exact lower-cased words only", () => {
    const bm25 = buildBm25Index(docs)
    expect(bm25.search("issue", 5).map((hit) => hit.name)).toContain("github_create_issue")
    expect(bm25.search("issues", 5)).toEqual([])
    expect(bm25.search("", 5)).toEqual([])
  })
})
