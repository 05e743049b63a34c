import { describe, expect, it } from "vitest"
import {
  EMPTY_MESSAGE,
  IDENTICAL_MESSAGE,
  isDisproportionate,
  NOT_FOUND_MESSAGE,
  type ReplaceResult,
  replace,
} from "./replace.ts"

type Replaced = Extract<ReplaceResult, { ok: true }>
type Failed = Extract<ReplaceResult, { ok: false }>

function replaced(result: ReplaceResult): Replaced {
  if (!result.ok) throw new Error(`expected a replacement, got ${result.reason}: ${result.message}`)
  return result
}

function failed(result: ReplaceResult): Failed {
  if (result.ok) {
    throw new Error(
      `expected a failure, got ${JSON.stringify(result.content.slice(0, 300))} by ${result.matcher}`,
    )
  }
  return result
}

describe("replace: blocks that are only similar are refused, with the closest region", () => {
  const repository = [
    "class Users:",
    "    def save(self, user):",
    "        self.db.execute(USERS, user)",
    '        log.info("saved user")',
    "",
    "class Orders:",
    "    def save(self, order):",
    "        self.db.execute(ORDERS, order)",
    '        log.info("saved order")',
    "",
  ].join("\n")

  it.each<[string, string, string]>([
    [
      "the header of one near-duplicate with the body of the other",
      repository,
      '    def save(self, user):\n        self.db.execute(ORDERS, order)\n        log.info("saved order")',
    ],
    [
      "half of the middle lines different",
      "function f() {\n  a()\n  b()\n  c()\n  d()\n}\n",
      "function f() {\n  a()\n  x()\n  c()\n  y()\n}",
    ],
    [
      "a name remembered wrong",
      "interface User {\n  id: string\n  displayName: string\n}\n",
      "interface User {\n  id: string\n  name: string\n}",
    ],
    [
      "a closing brace the file has earlier",
      "function f() {\n  a()\n}\nb()\n",
      "function f() {\n  a()\n  c()\n}",
    ],
    [
      "a middle section left out",
      "function f() {\n  a()\n  b()\n  c()\n  d()\n}\n",
      "function f() {\n  a()\n  d()\n}",
    ],
  ])("%s", (_, content, oldString) => {
    const result = failed(replace({ content, oldString, newString: `${oldString}\n// changed` }))
    expect(result.reason).toBe("not-found")
    expect(result.message).toContain("The closest region of the file is lines")
  })
})

describe("replace: aligned matches keep the file's text where newString does not change it", () => {
  it("keeps the file's curly quotes on lines left alone and where a changed line kept its text", () => {
    const content = "title = “Report”\nnote = “Don’t edit”—ever…\n"
    const result = replaced(
      replace({
        content,
        oldString: 'title = "Report"\nnote = "Don\'t edit"-ever...',
        newString: 'title = "Report"\nnote = "Don\'t edit" - please...',
      }),
    )
    expect(result.content).toBe("title = “Report”\nnote = “Don’t edit” — please…\n")
    expect(result.matcher).toBe("typographic")
    expect(result.normalisation).toBe(
      "matched ignoring typography (curly and straight quotes, dashes and hyphens, an ellipsis and three dots, no-break spaces) and whitespace; the file's typography kept where newString did not change the text",
    )
  })

  it("keeps the file's blank lines where oldString left them out", () => {
    const content = "def f():\n    a = 1\n\n    return a\n"
    const result = replaced(
      replace({ content, oldString: "    a = 1\n    return a", newString: "    a = 2\n    return a" }),
    )
    expect(result.content).toBe("def f():\n    a = 2\n\n    return a\n")
    expect(result.matcher).toBe("blank-line-tolerant")
    expect(result.normalisation).toContain("the file's blank lines were kept where oldString's differ")
  })

  it("keeps the file's trailing whitespace on lines left alone", () => {
    const content = "a()  \nb()\n"
    const result = replaced(replace({ content, oldString: "a()\nb()", newString: "a()\nc()" }))
    expect(result.content).toBe("a()  \nc()\n")
  })

  it("continues the file's line after a partial first line and re-indents the rest", () => {
    const content = "def f(x):\n    y = compute(x)\n    return y\n"
    const result = replaced(
      replace({ content, oldString: "compute(x)\nreturn y", newString: "compute(x, 2)\nreturn y" }),
    )
    expect(result.content).toBe("def f(x):\n    y = compute(x, 2)\n    return y\n")
    expect(result.matcher).toBe("partial-lines")
  })

  it("refuses a line added where the file has a blank line oldString lacks and either side fits", () => {
    const content = "a = 1\n\nb = 2\n"
    const result = failed(replace({ content, oldString: "a = 1\nb = 2", newString: "a = 1\nc = 3\nb = 2" }))
    expect(result.reason).toBe("uncertain")
    expect(result.message).toMatch(
      /^oldString matches lines 1-3 only when ignoring blank lines, typography and whitespace, and oldString's blank lines differ from the file's where newString adds lines/,
    )
    expect(result.message).toContain("The closest region of the file is lines 1-")
  })

  it("refuses an edit that would leave the file as it is", () => {
    const content = "a = 1\nb = 2\n"
    const result = failed(replace({ content, oldString: "a = 1\n\nb = 2", newString: "a = 1\nb = 2" }))
    expect(result.reason).toBe("identical")
    expect(result.message).toMatch(/^No changes to apply: oldString matched/)
  })
})

describe("replace: basics", () => {
  it("replaces a unique exact match", () => {
    expect(
      replace({ content: "let a = 1\nlet b = 2\n", oldString: "let b = 2", newString: "let b = 3" }),
    ).toEqual({
      ok: true,
      content: "let a = 1\nlet b = 3\n",
      matcher: "exact",
      occurrences: 1,
      lines: [2],
    })
  })

  it("refuses identical strings, also when they differ only in line endings", () => {
    for (const [oldString, newString] of [
      ["a", "a"],
      ["", ""],
      ["a\r\nb", "a\nb"],
      ["1: a", "a"],
    ] as const) {
      expect(replace({ content: "a\nb", oldString, newString })).toEqual({
        ok: false,
        reason: "identical",
        message: IDENTICAL_MESSAGE,
      })
    }
    expect(IDENTICAL_MESSAGE).toBe("No changes to apply: oldString and newString are identical.")
  })

  it("leaves an empty oldString to the tool", () => {
    expect(replace({ content: "content", oldString: "", newString: "new" })).toEqual({
      ok: false,
      reason: "empty",
      message: EMPTY_MESSAGE,
    })
  })

  it("replaces the matched span, which may differ from oldString, with newString literally", () => {
    const result = replaced(replace({ content: "x = 1\n", oldString: "x =  1", newString: "y = '$&$1'" }))
    expect(result.content).toBe("y = '$&$1'\n")
    expect(result.matcher).toBe("whitespace-normalised")
    expect(result.normalisation).toBe("matched ignoring differences in whitespace")
  })

  it("handles unicode text", () => {
    const content = "const greeting = {\n\ten: 'héllo 👋',\n\tja: 'こんにちは',\n}\n"
    const exact = replaced(replace({ content, oldString: "ja: 'こんにちは'", newString: "ja: 'さようなら'" }))
    expect(exact.content).toBe("const greeting = {\n\ten: 'héllo 👋',\n\tja: 'さようなら',\n}\n")
    const fuzzy = replaced(
      replace({
        content,
        oldString: "  en: 'héllo 👋',\n  ja: 'こんにちは',",
        newString: "  en: 'bye 👋',\n  ja: '🙇',",
      }),
    )
    expect(fuzzy.content).toBe("const greeting = {\n\ten: 'bye 👋',\n\tja: '🙇',\n}\n")
    expect(fuzzy.lines).toEqual([2])
  })
})

describe("replace: ambiguity stays an error", () => {
  it("never lets a looser matcher pick one of several exact matches", () => {
    // opencode skips the twice-found exact text, then line-trimmed yields "  run()", which is unique
    // as text, and replaces line 2 although the model may have meant line 4.
    const content = "if (a) {\n  run()\n}\nrun()\n"
    expect(failed(replace({ content, oldString: "run()", newString: "stop()" }))).toEqual({
      ok: false,
      reason: "ambiguous",
      message:
        "Found 2 matches for oldString (at lines 2, 4). Provide more surrounding lines in oldString to identify the correct match, or set replaceAll to true.",
    })
  })

  it("reports a looser matcher's several candidates with how many and where", () => {
    const content = "a()\n\tif (x) {\n\t\ty()\n\t}\nb()\n\tif (x) {\n\t\ty()\n\t}\n"
    const result = failed(replace({ content, oldString: "    if (x) {\n        y()\n    }", newString: "z" }))
    expect(result.reason).toBe("ambiguous")
    expect(result.message).toBe(
      "Found 2 matches for oldString (at lines 2, 6) when ignoring leading and trailing whitespace on each line. Provide more surrounding lines in oldString to identify the correct match, or set replaceAll to true.",
    )
  })

  it("lists at most twenty line numbers", () => {
    const content = "x\n".repeat(25)
    expect(failed(replace({ content, oldString: "x", newString: "y" })).message).toContain(
      "Found 25 matches for oldString (at lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 and 5 more).",
    )
  })
})

describe("replace: replaceAll", () => {
  it("replaces every exact occurrence", () => {
    const result = replaced(
      replace({ content: "a b a b a", oldString: "a", newString: "c", replaceAll: true }),
    )
    expect(result).toMatchObject({ content: "c b c b c", matcher: "exact", occurrences: 3, lines: [1, 1, 1] })
  })

  it("replaces only exact occurrences when there are any, even if a looser matcher finds more", () => {
    const content = "  bar();\n\tbar();\n"
    const result = replaced(
      replace({ content, oldString: "  bar();", newString: "  baz();", replaceAll: true }),
    )
    expect(result).toMatchObject({ content: "  baz();\n\tbar();\n", matcher: "exact", occurrences: 1 })
  })

  it("with no exact occurrence, replaces every candidate of the first looser matcher, each re-indented", () => {
    const content = "\tbar();\n\t\tbar();\n"
    const result = replaced(
      replace({ content, oldString: "  bar();", newString: "  baz();\n  qux();", replaceAll: true }),
    )
    expect(result.content).toBe("\tbaz();\n\tqux();\n\t\tbaz();\n\t\tqux();\n")
    expect(result).toMatchObject({ matcher: "line-trimmed", occurrences: 2, lines: [1, 2] })
    expect(result.normalisation).toBe(
      "matched ignoring indentation; newString re-indented with tabs as the file uses",
    )
  })

  it("skips overlapping occurrences, as String.replaceAll does", () => {
    expect(
      replaced(replace({ content: "aaaa", oldString: "aa", newString: "b", replaceAll: true })).content,
    ).toBe("bb")
    expect(
      replaced(replace({ content: "aaa", oldString: "aa", newString: "b", replaceAll: true })).content,
    ).toBe("ba")
  })
})

describe("replace: re-indentation", () => {
  const tabFile = "class A {\n\tmethod() {\n\t\tif (x) {\n\t\t\treturn 1\n\t\t}\n\t}\n}\n"

  it("writes newString with the file's tabs when oldString used spaces", () => {
    const result = replaced(
      replace({
        content: tabFile,
        oldString: "        if (x) {\n            return 1\n        }",
        newString: "        if (x) {\n            log(x)\n            return 2\n        }",
      }),
    )
    expect(result.content).toBe(
      "class A {\n\tmethod() {\n\t\tif (x) {\n\t\t\tlog(x)\n\t\t\treturn 2\n\t\t}\n\t}\n}\n",
    )
    expect(result.matcher).toBe("line-trimmed")
    expect(result.normalisation).toBe(
      "matched ignoring indentation; newString re-indented with tabs as the file uses",
    )
  })

  it("writes newString with the file's spaces when oldString used tabs", () => {
    const spaceFile = "def f():\n    if x:\n        return 1\n"
    const result = replaced(
      replace({
        content: spaceFile,
        oldString: "\tif x:\n\t\treturn 1",
        newString: "\tif x:\n\t\tlog(x)\n\t\treturn 2",
      }),
    )
    expect(result.content).toBe("def f():\n    if x:\n        log(x)\n        return 2\n")
    expect(result.normalisation).toBe(
      "matched ignoring indentation; newString re-indented with 4 spaces as the file uses",
    )
  })

  it("moves newString to the block's depth when oldString had none, keeping its relative indentation", () => {
    const result = replaced(
      replace({
        content: tabFile,
        oldString: "if (x) {\n\treturn 1\n}",
        newString: "if (x) {\n\tif (y) {\n\t\treturn 2\n\t}\n}",
      }),
    )
    expect(result.content).toBe(
      "class A {\n\tmethod() {\n\t\tif (x) {\n\t\t\tif (y) {\n\t\t\t\treturn 2\n\t\t\t}\n\t\t}\n\t}\n}\n",
    )
    expect(result.normalisation).toBe(
      "matched ignoring indentation; newString re-indented to the file's indentation (+2 tabs)",
    )
  })

  it("moves newString out when oldString was indented deeper than the file", () => {
    const content = "if (a) {\n  b()\n}\n"
    const result = replaced(
      replace({
        content,
        oldString: "      if (a) {\n        b()\n      }",
        newString: "      if (a) {\n        c()\n      }",
      }),
    )
    expect(result.content).toBe("if (a) {\n  c()\n}\n")
  })

  it("converts 4-space indentation to a 2-space file", () => {
    const content = "a {\n  b {\n    c\n  }\n}\n"
    const result = replaced(
      replace({ content, oldString: "b {\n    c\n}", newString: "b {\n    c\n    d {\n        e\n    }\n}" }),
    )
    expect(result.content).toBe("a {\n  b {\n    c\n    d {\n      e\n    }\n  }\n}\n")
    expect(result.normalisation).toContain("newString re-indented with 2 spaces as the file uses")
  })

  it("keeps newString as written when it already has the file's indentation", () => {
    const content = "function f() {\n    foo()\n    bar()\n}\n"
    const result = replaced(
      replace({ content, oldString: "foo()\nbar()", newString: "    foo()\n    baz()" }),
    )
    expect(result.content).toBe("function f() {\n    foo()\n    baz()\n}\n")
  })

  it("re-indents after a whole-line whitespace-normalised match", () => {
    const content = "\t\tconst  x = 1\n"
    const result = replaced(
      replace({ content, oldString: "const x = 1", newString: "const x = 2\nconst y = 3" }),
    )
    expect(result.content).toBe("\t\tconst x = 2\n\t\tconst y = 3\n")
    expect(result.matcher).toBe("whitespace-normalised")
  })

  it("does not touch newString when only trailing whitespace differed", () => {
    const content = "a()  \nb()\n"
    const result = replaced(replace({ content, oldString: "a()\nb()", newString: "x()\n  y()" }))
    expect(result.content).toBe("x()\n  y()\n")
    expect(result.normalisation).toBe("matched ignoring trailing whitespace")
  })
})

describe("replace: gutters copied from read output", () => {
  const content = "function f() {\n\tconst a = 1\n\treturn a\n}\n"

  it.each([
    ["12: ", (n: number) => `${n}: `],
    ["  12 | ", (n: number) => `${String(n).padStart(4)} | `],
    ["12→", (n: number) => `${String(n).padStart(6)}→`],
    ["12<tab>", (n: number) => `${String(n).padStart(6)}\t`],
  ])("strips %s from both strings", (_, gutter) => {
    const oldString = `${gutter(2)}\tconst a = 1\n${gutter(3)}\treturn a`
    const newString = `${gutter(2)}\tconst a = 2\n${gutter(3)}\treturn a`
    const result = replaced(replace({ content, oldString, newString }))
    expect(result.content).toBe("function f() {\n\tconst a = 2\n\treturn a\n}\n")
    expect(result.matcher).toBe("exact")
    expect(result.normalisation).toBe(
      "line-number prefixes copied from read output were stripped from oldString and newString",
    )
  })

  it("strips oldString's gutters when newString has none", () => {
    const result = replaced(replace({ content, oldString: "2: \tconst a = 1", newString: "\tconst a = 5" }))
    expect(result.content).toBe("function f() {\n\tconst a = 5\n\treturn a\n}\n")
    expect(result.normalisation).toBe(
      "line-number prefixes copied from read output were stripped from oldString",
    )
  })

  it("combines with the other normalisations", () => {
    const result = replaced(
      replace({
        content,
        oldString: "2:   const a = 1\n3:   return a",
        newString: "2:   const a = 1\n3:   return a + 1",
      }),
    )
    expect(result.content).toBe("function f() {\n\tconst a = 1\n\treturn a + 1\n}\n")
    expect(result.normalisation).toBe(
      "line-number prefixes copied from read output were stripped from oldString and newString; matched ignoring indentation; newString re-indented with tabs as the file uses",
    )
  })

  it("leaves text that is in the file as given alone (a YAML key is not a gutter)", () => {
    const yaml = "codes:\n  1: one\n  2: two\n"
    const result = replaced(
      replace({ content: yaml, oldString: "1: one\n  2: two", newString: "1: uno\n  2: dos" }),
    )
    expect(result.content).toBe("codes:\n  1: uno\n  2: dos\n")
    expect(result.normalisation).toBeUndefined()
  })

  it("strips newString's numbered lines and keeps the lines it added without a number", () => {
    const result = replaced(
      replace({ content, oldString: "2: \tconst a = 1", newString: "2: \tconst a = 1\n\tconst b = 2" }),
    )
    expect(result.content).toBe("function f() {\n\tconst a = 1\n\tconst b = 2\n\treturn a\n}\n")
  })

  it("takes oldString with one line that lost its number", () => {
    const result = replaced(
      replace({
        content,
        oldString: "1: function f() {\n\tconst a = 1\n3: \treturn a",
        newString: "1: function f() {\n\tconst a = 2\n3: \treturn a",
      }),
    )
    expect(result.content).toBe("function f() {\n\tconst a = 2\n\treturn a\n}\n")
  })

  it("does not strip when newString's numbers go backwards", () => {
    expect(
      failed(
        replace({ content, oldString: "2: \tconst a = 1", newString: "3: \treturn a\n2: \tconst a = 1" }),
      ).reason,
    ).toBe("not-found")
  })
})

describe("replace: line endings", () => {
  it("keeps a CRLF file CRLF when the strings use LF", () => {
    const result = replaced(
      replace({ content: "a\r\nb\r\nc\r\n", oldString: "a\nb\n", newString: "x\ny\nz\n" }),
    )
    expect(result.content).toBe("x\r\ny\r\nz\r\nc\r\n")
    expect(result.normalisation).toBe("newString's line breaks written as CRLF, as the file uses")
  })

  it("keeps an LF file LF when the strings use CRLF", () => {
    const result = replaced(replace({ content: "a\nb\nc\n", oldString: "a\r\nb", newString: "x\r\ny" }))
    expect(result.content).toBe("x\ny\nc\n")
    expect(result.normalisation).toBe("newString's line breaks written as LF, as the file uses")
  })

  it("says nothing when newString already uses the file's convention or has no line break", () => {
    expect(
      replaced(replace({ content: "a\r\nb\r\n", oldString: "a\r\nb", newString: "x\r\ny" })).normalisation,
    ).toBeUndefined()
    expect(
      replaced(replace({ content: "a\r\nb\r\n", oldString: "a\nb", newString: "x" })).normalisation,
    ).toBeUndefined()
    expect(replaced(replace({ content: "a\r\nb\r\n", oldString: "a\nb", newString: "x" })).content).toBe(
      "x\r\n",
    )
  })

  it("leaves the other lines of a mixed file exactly as they were", () => {
    const content = "one\r\ntwo\nthree\r\nfour\n"
    expect(replaced(replace({ content, oldString: "three", newString: "3" })).content).toBe(
      "one\r\ntwo\n3\r\nfour\n",
    )
    // New line breaks take the ending of the lines they replace.
    expect(replaced(replace({ content, oldString: "one\ntwo", newString: "1\n1.5\n2" })).content).toBe(
      "1\r\n1.5\r\n2\nthree\r\nfour\n",
    )
    expect(replaced(replace({ content, oldString: "two\nthree\nfour\n", newString: "x\ny\n" })).content).toBe(
      "one\r\nx\ny\n",
    )
  })

  it("handles a span that starts or ends with a line break", () => {
    expect(replaced(replace({ content: "a\r\nb\r\nc", oldString: "\nb", newString: "\nB" })).content).toBe(
      "a\r\nB\r\nc",
    )
    expect(replaced(replace({ content: "a\r\nb\r\nc", oldString: "b\n", newString: "" })).content).toBe(
      "a\r\nc",
    )
  })

  it("matches fuzzily on CRLF, re-indents, and writes CRLF", () => {
    const content = "if (a) {\r\n\tb()\r\n\tc()\r\n}\r\n"
    const result = replaced(
      replace({ content, oldString: "    b()\n    c()\n", newString: "    b()\n    d()\n    e()\n" }),
    )
    expect(result.content).toBe("if (a) {\r\n\tb()\r\n\td()\r\n\te()\r\n}\r\n")
    expect(result.matcher).toBe("line-trimmed")
  })

  it("replaces all occurrences in a CRLF file", () => {
    expect(
      replaced(replace({ content: "x\r\ny\r\nx\r\n", oldString: "x", newString: "z\nw", replaceAll: true }))
        .content,
    ).toBe("z\r\nw\r\ny\r\nz\r\nw\r\n")
  })

  it("drops newString's final line break at the end of a file that has none", () => {
    const result = replaced(replace({ content: "a\n  b", oldString: "b\n", newString: "c\n" }))
    expect(result.content).toBe("a\n  c")
    expect(result.normalisation).toBe(
      "matched ignoring indentation; newString re-indented to the file's indentation (+2 spaces); the file's last line has no line break, so newString's final line break was dropped",
    )
  })
})

describe("replace: tabs and spaces", () => {
  it("matches spaces against tabs and writes tabs", () => {
    const result = replaced(replace({ content: "\tx = 1\n", oldString: "    x = 1", newString: "    x = 2" }))
    expect(result.content).toBe("\tx = 2\n")
  })

  it("matches tabs against spaces and writes spaces", () => {
    const result = replaced(
      replace({ content: "  x = 1\n", oldString: "\tx = 1", newString: "\tx = 2\n\ty = 3" }),
    )
    expect(result.content).toBe("  x = 2\n  y = 3\n")
  })

  it("reconciles tabs inside a line (alignment) by whitespace normalisation", () => {
    const result = replaced(
      replace({ content: "const a\t= 1\n", oldString: "const a = 1", newString: "const a = 2" }),
    )
    expect(result).toMatchObject({ content: "const a = 2\n", matcher: "whitespace-normalised" })
  })
})

describe("replace: escapes", () => {
  it("unescapes an over-escaped newString too", () => {
    const result = replaced(
      replace({
        content: 'log("hi")\nlog("x")\n',
        oldString: 'log(\\"hi\\")\\nlog(\\"x\\")',
        newString: 'log(\\"bye\\")',
      }),
    )
    expect(result.content).toBe('log("bye")\n')
    expect(result.matcher).toBe("escape-normalised")
  })

  it("keeps the file's escaping when the file holds the escapes", () => {
    const result = replaced(
      replace({ content: 'echo \\"hi\\"\n', oldString: 'echo "hi"', newString: 'echo "bye"' }),
    )
    expect(result.content).toBe('echo \\"bye\\"\n')
  })
})

describe("replace: trimmed boundary", () => {
  it("drops the whitespace oldString had around it from newString too", () => {
    const result = replaced(
      replace({ content: "call(foo(), 1)", oldString: "\n foo()\n", newString: "\n bar()\n" }),
    )
    expect(result).toMatchObject({ content: "call(bar(), 1)", matcher: "trimmed-boundary" })
  })
})

describe("replace: the disproportion guard", () => {
  it.each<[string, string, boolean]>([
    ["a\nb", "a\nb", false],
    ["a\nb\nc\nd", "a\nb", false], // 4 lines < max(2 + 3, 2 × 2)
    ["a\nb\nc\nd\ne", "a\nb", true], // 5 lines ≥ max(2 + 3, 2 × 2)
    ["a\nb\nc\nd", "a\nb\nc", false], // 4 < max(3 + 3, 6)
    ["a\nb\nc\nd\ne\nf", "a\nb\nc", true],
    [`a${" ".repeat(600)}b\nc`, "a b\nc", true], // characters: 603 > max(5 + 500, 20)
    [`a${" ".repeat(600)}b`, "a b", false], // one line: characters not checked
  ])("%j for %j → %s", (span, oldString, refused) => {
    expect(isDisproportionate(span, oldString)).toBe(refused)
  })

  it("refuses a looser match whose span is much larger than oldString, and says so", () => {
    const content = `start\na${" ".repeat(600)}b\nc d\nend\n`
    const result = failed(replace({ content, oldString: "a b\nc d", newString: "x" }))
    expect(result.reason).toBe("not-found")
    expect(result.message).toContain(
      "A looser match at lines 2-3 was refused because the matched span is much larger than oldString.",
    )
  })
})

describe("replace: not found", () => {
  const content = [
    "import { a } from './a'",
    "",
    "export function total(items) {",
    "  let sum = 0",
    "  for (const item of items) {",
    "    sum += item.price",
    "  }",
    "  return sum",
    "}",
  ].join("\n")

  it("names the closest region with line numbers and a diff", () => {
    const result = failed(
      replace({ content, oldString: "let sum = 0\nfor (const item of item) {", newString: "x" }),
    )
    expect(result.reason).toBe("not-found")
    expect(result.message).toBe(
      [
        NOT_FOUND_MESSAGE,
        "",
        `The closest region of the file is lines 4-5 (98% similar). How oldString differs from it ("-" only in oldString, "+" only in the file, numbers are file lines):`,
        "  - let sum = 0",
        "  - for (const item of item) {",
        "4 +   let sum = 0",
        "5 +   for (const item of items) {",
        "1 line differ only in whitespace.",
      ].join("\n"),
    )
    expect(NOT_FOUND_MESSAGE).toBe(
      "Could not find oldString in the file. It must match exactly, including whitespace and indentation.",
    )
  })

  it("says so when nothing in the file resembles oldString", () => {
    const result = failed(replace({ content, oldString: "class Nothing {}", newString: "x" }))
    expect(result.message).toBe(
      `${NOT_FOUND_MESSAGE}\n\nNo region of the file resembles oldString; read the file to see its current content.`,
    )
  })
})

describe("replace: big files", () => {
  const lines: string[] = []
  for (let i = 0; i < 20_000; i++) {
    lines.push(
      i % 40 === 0
        ? `function f${i}(a, b) {`
        : i % 40 === 39
          ? "}"
          : `\tconst v${i} = compute(a, ${i}) // ${i}`,
    )
  }
  const big = `${lines.join("\n")}\n`
  const at = 19_950
  const block = lines.slice(at, at + 5)

  it("makes a 5-line exact edit near the end of a 20,000-line file", () => {
    const result = replaced(replace({ content: big, oldString: block.join("\n"), newString: "\tchanged()" }))
    expect(result.lines).toEqual([at + 1])
    expect(result.content.split("\n")).toHaveLength(20_000 - 5 + 2)
  })

  it("makes the same edit with other indentation (fuzzy)", () => {
    const spaced = block.map((line) => line.replace(/^\t/, "    ")).join("\n")
    const result = replaced(replace({ content: big, oldString: spaced, newString: "    changed()" }))
    expect(result.matcher).toBe("line-trimmed")
    expect(result.content.split("\n")[at]).toBe("\tchanged()")
  })

  it("reports a miss with the closest region", () => {
    // Typos in the first and last lines too, so no anchor-based matcher takes it.
    const wrong = block.map((line, i) => (i % 2 === 0 ? line.replace("compute", "compote") : line)).join("\n")
    const result = failed(replace({ content: big, oldString: wrong.replaceAll("\t", "  "), newString: "x" }))
    expect(result.message).toContain(`lines ${at + 1}-${at + 5}`)
  })
})

describe("replace: looser matchers stay bounded on hostile files", () => {
  it("partial-lines over 20,000 lines that all end like oldString's first line", () => {
    const content = Array.from({ length: 20_000 }, (_, i) => `  value${i} = compute(x)`).join("\n")
    const result = failed(replace({ content, oldString: "compute(x)\nnot here\nnor here", newString: "z" }))
    expect(result.reason).toBe("not-found")
  })

  it("blank-line-tolerant over 20,000 lines separated by blank lines", () => {
    const content = Array.from({ length: 10_000 }, () => "step()\n").join("\n")
    const result = failed(replace({ content, oldString: "step()\nstep()\nstop()", newString: "z" }))
    expect(result.reason).toBe("not-found")
  })

  it("blank-line-tolerant over many identical blocks is one ambiguity", () => {
    const content = Array.from({ length: 5_000 }, () => "begin\n\n  work()\nend").join("\n")
    const result = failed(replace({ content, oldString: "begin\n  work()\nend", newString: "z" }))
    expect(result.message).toMatch(
      /^Found 5000 matches for oldString \(at lines 1, 5, 9, .* and 4980 more\) when ignoring blank lines/,
    )
  })

  it("line-based matchers over 20,000 blank-ish lines", () => {
    const content = "\n".repeat(10_000) + "  }\n".repeat(10_000)
    const result = failed(replace({ content, oldString: "}\n}\n}\nnot here", newString: "z" }))
    expect(result.reason).toBe("not-found")
  })
})
