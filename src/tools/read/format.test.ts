import { describe, expect, it } from "vitest"
import {
  bytesLabel,
  fileFooter,
  formatDirectoryPage,
  formatFilePage,
  formatInstructions,
  notFoundMessage,
  similarNames,
} from "./format.ts"

describe("fileFooter", () => {
  const base = { offset: 1, lastLine: 10, totalLines: 10, truncatedByBytes: false, maxBytes: 51_200 }
  it.each([
    [{}, "(End of file - total 10 lines)"],
    [{ totalLines: 25 }, "(Showing lines 1-10 of 25. Use offset=11 to continue.)"],
    [{ offset: 5, lastLine: 9, totalLines: 25 }, "(Showing lines 5-9 of 25. Use offset=10 to continue.)"],
    [
      { truncatedByBytes: true, totalLines: 25 },
      "(Output capped at 50 KB. Showing lines 1-10. Use offset=11 to continue.)",
    ],
    [{ offset: 1, lastLine: 0, totalLines: 0 }, "(End of file - total 0 lines)"],
  ])("%j → %s", (page, footer) => {
    expect(fileFooter({ ...base, ...page })).toBe(footer)
  })
})

describe("formatFilePage", () => {
  it("numbers lines from the offset and closes the content", () => {
    expect(
      formatFilePage({
        path: "/p/a.ts",
        offset: 7,
        lines: ["x", "", "y"],
        lastLine: 9,
        totalLines: 9,
        truncatedByBytes: false,
        maxBytes: 51_200,
      }),
    ).toBe(
      "<path>/p/a.ts</path>\n<type>file</type>\n<content>\n7: x\n8: \n9: y\n\n(End of file - total 9 lines)\n</content>",
    )
  })
})

describe("formatDirectoryPage", () => {
  it("counts the entries when all are shown", () => {
    expect(formatDirectoryPage({ path: "/p", offset: 1, entries: ["a/", "b"], totalEntries: 2 })).toBe(
      "<path>/p</path>\n<type>directory</type>\n<entries>\na/\nb\n\n(2 entries)\n</entries>",
    )
  })

  it("says which entry to read beyond when more follow", () => {
    expect(formatDirectoryPage({ path: "/p", offset: 3, entries: ["c", "d"], totalEntries: 9 })).toBe(
      "<path>/p</path>\n<type>directory</type>\n<entries>\nc\nd\n\n(Showing 2 of 9 entries. Use 'offset' parameter to read beyond entry 4)\n</entries>",
    )
  })
})

describe("similarNames", () => {
  it.each([
    [
      "config",
      ["config.ts", "Config.json", "other", "myconfig.yaml", "configs"],
      ["config.ts", "Config.json", "myconfig.yaml"],
    ],
    ["index.tsx", ["index.ts", "index.css", "x"], ["index.ts", "x"]],
    ["README", ["readme.md"], ["readme.md"]],
    ["nothing", ["a.ts", "b.ts"], []],
    ["", ["a"], []],
  ])("%s among %j → %j", (missing, siblings, expected) => {
    expect(similarNames(missing, siblings)).toEqual(expected)
  })
})

describe("messages", () => {
  it("notFoundMessage lists suggestions only when there are some", () => {
    expect(notFoundMessage("/p/x", [])).toBe("File not found: /p/x")
    expect(notFoundMessage("/p/x", ["/p/xy"])).toBe(
      "File not found: /p/x\n\nDid you mean one of these?\n/p/xy",
    )
  })

  it("formatInstructions puts every file in one system reminder", () => {
    expect(
      formatInstructions([
        { path: "/p/a/AGENTS.md", content: "A" },
        { path: "/p/CLAUDE.md", content: "B" },
      ]),
    ).toBe(
      "<system-reminder>\nInstructions from: /p/a/AGENTS.md\nA\n\nInstructions from: /p/CLAUDE.md\nB\n</system-reminder>",
    )
  })

  it("bytesLabel", () => {
    expect(bytesLabel(51_200)).toBe("50 KB")
    expect(bytesLabel(1000)).toBe("1000 bytes")
  })
})
