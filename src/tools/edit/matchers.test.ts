import { describe, expect, it } from "vitest"
import { MatchContext, type MatcherName, unescapeString } from "./match-context.ts"
import { MATCHERS } from "./matchers.ts"

/** The texts one matcher yields for `find` in `content`, in the order it yields them. */
function spans(name: MatcherName, content: string, find: string): string[] {
  const matcher = MATCHERS.find((m) => m.name === name)!
  const context = new MatchContext(content, find)
  return [...matcher.find(context)].map((candidate) => content.slice(candidate.start, candidate.end))
}

describe("the chain", () => {
  it("has opencode's nine matchers in opencode's order", () => {
    expect(MATCHERS.map((m) => m.name)).toEqual([
      "exact",
      "line-trimmed",
      "block-anchor",
      "whitespace-normalised",
      "indentation-flexible",
      "escape-normalised",
      "trimmed-boundary",
      "context-aware",
      "multi-occurrence",
    ])
  })
})

describe("exact", () => {
  it.each<[string, string, string, string[]]>([
    ["one occurrence", "let a = 1\nlet b = 2\n", "let b", ["let b"]],
    ["every occurrence", "foo(); foo();\nfoo();", "foo();", ["foo();", "foo();", "foo();"]],
    ["overlapping occurrences", "aaa", "aa", ["aa", "aa"]],
    ["a multi-line find", "a\nb\nc\n", "b\nc\n", ["b\nc\n"]],
    ["none: whitespace differs", "\tfoo()", "    foo()", []],
    ["none: case differs", "Foo", "foo", []],
  ])("%s", (_, content, find, expected) => {
    expect(spans("exact", content, find)).toEqual(expected)
  })
})

describe("line-trimmed", () => {
  it.each<[string, string, string, string[]]>([
    ["other indentation", "x\n    foo()\n    bar()\ny", "foo()\n  bar()", ["    foo()\n    bar()"]],
    ["trailing whitespace in the file", "foo()   \nbar()\t\n", "foo()\nbar()", ["foo()   \nbar()\t"]],
    ["takes the line break a final \\n asks for", "  a\n  b\nc", "a\nb\n", ["  a\n  b\n"]],
    ["every window", "  a\nb\n\ta\n", "a", ["  a", "\ta"]],
    ["none: a middle line differs", "  a\n  x\n  c", "a\nb\nc", []],
    ["none: a blank find", "a\n\nb", "  \n", []],
    ["none: part of a line only", "let foo = 1", "foo", []],
  ])("%s", (_, content, find, expected) => {
    expect(spans("line-trimmed", content, find)).toEqual(expected)
  })
})

describe("block-anchor", () => {
  const twoBlocks = [
    "if (ready) {",
    "  start(server, options)",
    "  log('server started on port ' + port)",
    "}",
    "",
    "if (ready) {",
    "  close(database)",
    "  notifyAll(subscribers)",
    "}",
  ].join("\n")

  it.each<[string, string, string, string[]]>([
    [
      "middle lines similar enough",
      "function f() {\n  const total = sum(1, 2)\n  return total\n}",
      "function f() {\n  const total = sum(1, 3)\n  return total;\n}",
      ["function f() {\n  const total = sum(1, 2)\n  return total\n}"],
    ],
    [
      "a block one line longer (within a quarter of its length)",
      "begin\n  a = compute(1)\n  b = compute(2)\n  c = compute(3)\n  d = compute(4)\n  e = compute(5)\nend",
      "begin\n  a = compute(1)\n  b = compute(2)\n  c = compute(3)\n  d = compute(40)\nend",
      [
        "begin\n  a = compute(1)\n  b = compute(2)\n  c = compute(3)\n  d = compute(4)\n  e = compute(5)\nend",
      ],
    ],
    [
      "the closing anchor where the block ends, not the first one after the start",
      "function f() {\n  if (a) {\n    b()\n  }\n  return c\n}",
      "function f() {\n  if (a) {\n    b2()\n  }\n  return c\n}",
      ["function f() {\n  if (a) {\n    b()\n  }\n  return c\n}"],
    ],
    [
      "blank middle lines do not count against the match (opencode #45199)",
      "section {\n\n\n\n  doThing(1)\n}",
      "section {\n\n\n\n  doThing(2)\n}",
      ["section {\n\n\n\n  doThing(1)\n}"],
    ],
    ["none: fewer than three lines", "a {\n  x\n}", "a {\n}", []],
    [
      "none: a final line break does not make two lines three (opencode #14632)",
      "if (x) {\n  destroy()\n}\n",
      "if (x) {\n}\n",
      [],
    ],
    [
      "none: middle lines too different (a weak single candidate)",
      "if (a) {\n  completely()\n  unrelated()\n}",
      "if (a) {\n  something.else = 42\n  return other\n}",
      [],
    ],
    ["none: blank anchors", "\n  a()\n  b()\n", "\n  a2()\n  b()\n\n", []],
    ["none: the block is far longer", "a {\n1\n2\n3\n4\n5\n6\n}", "a {\n1\n2\n}", []],
  ])("%s", (_, content, find, expected) => {
    expect(spans("block-anchor", content, find)).toEqual(expected)
  })

  it("does not confuse two blocks with the same anchors: only the similar one matches", () => {
    const find = "if (ready) {\n  start(server, opts)\n  log('server started on port ' + port)\n}"
    expect(spans("block-anchor", twoBlocks, find)).toEqual([twoBlocks.split("\n").slice(0, 4).join("\n")])
    const other = "if (ready) {\n  close(db)\n  notifyAll(subscribers)\n}"
    expect(spans("block-anchor", twoBlocks, other)).toEqual([twoBlocks.split("\n").slice(5).join("\n")])
  })
})

describe("whitespace-normalised", () => {
  it.each<[string, string, string, string[]]>([
    ["a whole line", "const  x =\t1\n", "const x = 1", ["const  x =\t1"]],
    ["part of a line, word for word", "if (const x  =  1) {}", "x = 1", ["x  =  1"]],
    ["several lines", "a  b\n  c\t d\n", "a b\nc d", ["a  b\n  c\t d"]],
    ["none: different words", "const x = 2", "const x = 1", []],
    ["none: a blank find", "a  b", " \t ", []],
  ])("%s", (_, content, find, expected) => {
    expect(spans("whitespace-normalised", content, find)).toEqual(expected)
  })
})

describe("indentation-flexible", () => {
  it.each<[string, string, string, string[]]>([
    [
      "same shape, other depth",
      "class A {\n  if (a) {\n    b()\n  }\n}",
      "    if (a) {\n      b()\n    }",
      ["  if (a) {\n    b()\n  }"],
    ],
    ["none: the relative indentation differs", "if (a) {\n  b()\n}", "if (a) {\nb()\n}", []],
    ["none: trailing whitespace differs", "  a  \n  b", "a\nb", []],
  ])("%s", (_, content, find, expected) => {
    expect(spans("indentation-flexible", content, find)).toEqual(expected)
  })
})

describe("escape-normalised", () => {
  it.each<[string, string, string]>([
    ["\\n", "a\\nb", "a\nb"],
    ["\\t", "a\\tb", "a\tb"],
    ["\\r", "a\\rb", "a\rb"],
    ["quotes and backticks", "\\\"q\\\" \\'s\\' \\`t\\`", "\"q\" 's' `t`"],
    ["backslash", "C:\\\\dir", "C:\\dir"],
    ["dollar", "\\$HOME", "$HOME"],
    ["an escaped line break", "a \\\nb", "a \nb"],
    ["unknown escapes stay", "\\d+\\w", "\\d+\\w"],
  ])("unescapeString: %s", (_, input, output) => {
    expect(unescapeString(input)).toBe(output)
  })

  it.each<[string, string, string, string[]]>([
    ["an over-escaped quote", 'console.log("hi")\n', 'console.log(\\"hi\\")', ['console.log("hi")']],
    ["\\n for a real line break", "first\nsecond\n", "first\\nsecond", ["first\nsecond"]],
    ["\\t for a real tab", "a\tb", "a\\tb", ["a\tb"]],
    ["the file holds the escapes", 'echo \\"hi\\"\n', 'echo "hi"', ['echo \\"hi\\"']],
    ["none", "abc", "a\\nc", []],
  ])("%s", (_, content, find, expected) => {
    expect(spans("escape-normalised", content, find)).toEqual(expected)
  })
})

describe("trimmed-boundary", () => {
  it.each<[string, string, string, string[]]>([
    ["whitespace around oldString", "call(foo(), 1)", "\n  foo()  \n", ["foo()"]],
    ["none: nothing to trim", "foo()", "foo()", []],
    ["none: only whitespace", "a  b", "  ", []],
  ])("%s", (_, content, find, expected) => {
    expect(spans("trimmed-boundary", content, find)).toEqual(expected)
  })
})

describe("context-aware", () => {
  const content = "function f() {\n  a()\n  b()\n  c()\n  d()\n}"
  it.each<[string, string, string[]]>([
    ["half the middle lines equal", "function f() {\n  a()\n  x()\n  c()\n  y()\n}", [content]],
    ["none: fewer than half equal", "function f() {\n  a()\n  x()\n  y()\n  z()\n}", []],
    ["none: another line count", "function f() {\n  a()\n  b()\n  c()\n}", []],
    ["none: other anchors", "function g() {\n  a()\n  b()\n  c()\n  d()\n}", []],
    ["none: only blank middle lines to compare", "function f() {\n\n\n\n\n}", []],
  ])("%s", (_, find, expected) => {
    expect(spans("context-aware", content, find)).toEqual(expected)
  })
})

describe("multi-occurrence", () => {
  it("yields every exact occurrence", () => {
    expect(spans("multi-occurrence", "x y x", "x")).toEqual(["x", "x"])
  })
})
