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
  it("has opencode's matchers in opencode's order without the similarity ones, then the aligning ones", () => {
    expect(MATCHERS.map((m) => m.name)).toEqual([
      "exact",
      "line-trimmed",
      "whitespace-normalised",
      "indentation-flexible",
      "escape-normalised",
      "trimmed-boundary",
      "typographic",
      "blank-line-tolerant",
      "partial-lines",
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

describe("typographic", () => {
  const doc = "Say “hello”—it’s free…\nPrice: 10\u00a0€\nDon't panic.\n"
  it.each<[string, string, string, string[]]>([
    [
      "straight quotes, a hyphen and three dots for the file's",
      doc,
      'Say "hello"-it\'s free...',
      ["Say “hello”—it’s free…"],
    ],
    ["an em dash typed as two hyphens", "a — b\n", "a -- b", ["a — b"]],
    [
      "a space for a no-break space, over two lines",
      doc,
      "Price: 10 €\nDon't panic.",
      ["Price: 10\u00a0€\nDon't panic."],
    ],
    ["curly quotes typed for the file's straight ones", doc, "Don’t panic.", ["Don't panic."]],
    ["part of one line", doc, "it's free...", ["it’s free…"]],
    ["every place part of a line matches", "“a” and “a”", '"a"', ["“a”", "“a”"]],
    ["indentation and inner whitespace ignored too", "  x = “y”\n", 'x  =  "y"', ["  x = “y”"]],
    ["none: a word differs", doc, 'Say "goodbye"-it\'s free...', []],
    ["none: a line left out", doc, "Say \"hello\"-it's free...\nDon't panic.", []],
    ["none: a blank line more", doc, 'Say "hello"-it\'s free...\n\nPrice: 10 €', []],
    ["none: a blank oldString", doc, "  \n", []],
  ])("%s", (_, content, find, expected) => {
    expect(spans("typographic", content, find)).toEqual(expected)
  })
})

describe("blank-line-tolerant", () => {
  const code = "a()\n\nb()\n\n\nc()\nd()\n\n\n\n\ne()\n"
  it.each<[string, string, string[]]>([
    ["a blank line dropped", "a()\nb()", ["a()\n\nb()"]],
    ["two blank lines sent as one", "b()\n\nc()", ["b()\n\n\nc()"]],
    ["a blank line added", "c()\n\nd()", ["c()\nd()"]],
    ["other indentation, and two blank lines dropped", "  b()\nc()", ["b()\n\n\nc()"]],
    ["trailing blank lines the file has fewer of", "c()\nd()\n\n\n\n\n\n\n", ["c()\nd()\n\n\n\n\n"]],
    ["none: four blank lines left out (more than two)", "d()\ne()", []],
    ["none: a line left out", "a()\nc()", []],
    ["none: the lines in another order", "b()\na()", []],
  ])("%s", (_, find, expected) => {
    expect(spans("blank-line-tolerant", code, find)).toEqual(expected)
  })
})

describe("partial-lines", () => {
  const code = "  total = price * quantity\n  tax = total * rate\n  return round(total + tax, 2)\n"
  it.each<[string, string, string[]]>([
    [
      "the first line from the middle of the file's line",
      "price * quantity\ntax = total * rate",
      ["price * quantity\n  tax = total * rate"],
    ],
    ["the last line cut off", "tax = total * rate\nreturn round(", ["  tax = total * rate\n  return round("]],
    [
      "both, with a whole line between",
      "quantity\n  tax = total * rate\n  return round",
      ["quantity\n  tax = total * rate\n  return round"],
    ],
    ["none: the first line starts inside a word", "ice * quantity\ntax = total * rate", []],
    ["none: the last line ends inside a word", "tax = total * rate\nreturn rou", []],
    ["none: no whole line to pin the partial ones", "quantity\n  tax", []],
    ["none: the next line differs", "price * quantity\ntax = total * 2", []],
    ["none: a single line", "price * quantity", []],
  ])("%s", (_, find, expected) => {
    expect(spans("partial-lines", code, find)).toEqual(expected)
  })
})

describe("multi-occurrence", () => {
  it("yields every exact occurrence", () => {
    expect(spans("multi-occurrence", "x y x", "x")).toEqual(["x", "x"])
  })
})
