import { expect, it } from "vitest"
import { buildIndexOffThread } from "./off-thread-index.ts"
import { buildToolIndex, type SearchDoc } from "./rank/index.ts"

const doc = (name: string, description: string): SearchDoc => ({
  name,
  description,
  inputSchema: { type: "object", properties: { id: { type: "string", description: "the id" } } },
  server: { name: name.split("_")[0]! },
})
const docs = [
  doc("github_create_issue", "Create a new issue in a GitHub repository."),
  doc("github_list_issues", "List issues in a GitHub repository."),
  doc("slack_post_message", "Post a message to a Slack channel."),
  doc("files_read_file", "Read a file from disk."),
]

it("answers from a worker as the index built in process does, filtered by the accepted names", async () => {
  const here = buildToolIndex(docs)
  const there = await buildIndexOffThread(docs)
  try {
    expect(there.size).toBe(4)
    for (const query of ["create issue", "post slack message", "read file", "", "the"])
      expect(await there.search(query, 3)).toEqual(here.search(query, 3))
    const accept = new Set(["github_list_issues"])
    expect((await there.search("issue", 5, accept)).map((hit) => hit.name)).toEqual(["github_list_issues"])
    // Searches at once are answered each with its own hits.
    const [a, b] = await Promise.all([there.search("slack", 1), there.search("file", 1)])
    expect(a[0]?.name).toBe("slack_post_message")
    expect(b[0]?.name).toBe("files_read_file")
  } finally {
    there.close()
  }
  await expect(there.search("issue", 1)).rejects.toThrow(/closed/)
})
