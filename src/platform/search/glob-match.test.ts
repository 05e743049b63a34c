import { describe, expect, it } from "vitest"
import { compileGlob } from "./glob-match.ts"

const matches = (glob: string, path: string) => compileGlob(glob).matches(path)

describe("compileGlob matches as picomatch did (dot: true)", () => {
  // Each row was checked against picomatch 4.0.7 with `dot: true`.
  it.each([
    // Globstars: zero or more directories, the directory itself at the end, `*` elsewhere.
    ["src/**", "src", true],
    ["src/**", "src/a/b.ts", true],
    ["*/**", "a", false],
    ["*/**", "a/b", true],
    ["a/**/{,b}", "a", true],
    ["a/**/*", "a", false],
    ["**/x", "x", true],
    ["**/x", "a/b/x", true],
    ["{**/a,b}", "a", false],
    ["{**/a,b}", "x/a", true],
    ["a/**/b", "a/b", true],
    ["a/**b", "a/xb", true],
    ["a/**b", "a/x/b", false],
    ["***", "abc", true],
    ["a/***/b", "a/x/b", true],
    ["a/***/b", "a/x/y/b", false],
    ["**/*.ts", "a/.hidden/x.ts", true],
    // Classes; brackets without a range or negation also match as literal text (Next.js routes).
    ["[abc].ts", "[abc].ts", true],
    ["[abc].ts", "b.ts", true],
    ["app/[id]/page.tsx", "app/[id]/page.tsx", true],
    ["app/[id]/page.tsx", "app/i/page.tsx", true],
    ["x/[a-c].ts", "x/[a-c].ts", true],
    ["y/x[a-c].ts", "y/x[a-c].ts", true],
    ["[^a]", "/", false],
    ["a[^x]b", "a/b", false],
    ["[[:digit:]]*", "9lives", true],
    ["[[:upper:]]", "a", false],
    // Braces: nested, across `/`, empty alternatives; without a comma they are literal text; never closed,
    // they match only the glob's own text.
    ["{a,b{c,d}}x", "bdx", true],
    ["{a/b,c}/*.ts", "a/b/x.ts", true],
    ["{,x}y", "y", true],
    ["{a}", "{a}", true],
    ["{a}", "a", false],
    ["{a,b", "{a,b", true],
    ["{a,b", "a", false],
    ["{a..e}", "c", true],
    ["{e..a}", "c", true],
    ["x{1..3}", "x2", true],
    // Escapes, negation, and what is plain text.
    ["\\*", "*", true],
    ["\\*", "a", false],
    ["a\\/b", "a/b", true],
    ["!*.ts", "a.ts", false],
    ["!*.ts", "a.js", true],
    ["!!*.ts", "a.ts", true],
    ["a+b", "a+b", true],
    ["a$", "a$", true],
    ["^a", "^a", true],
    ["a.b", "axb", false],
    // Hidden files, and picomatch's fast path for `*.*`.
    ["?", ".", true],
    ["*", ".env", true],
    ["*.ts", ".ts", true],
    ["*.*", "a.", false],
    ["*.*", "a.b", true],
    ["a.*", "a.", true],
  ])("%s on %s → %s", (glob, path, expected) => {
    expect(matches(glob, path)).toBe(expected)
  })

  it("tests a file by its directory and name as by its path, across directories and back", () => {
    const program = compileGlob("src/**/{a,b}/*.json")
    const paths = [
      "src/a/x.json",
      "src/deep/b/y.json",
      "src/c/x.json",
      "lib/a/x.json",
      "src/a/x.json",
      "src/b.json",
    ]
    for (const path of paths) {
      const slash = path.lastIndexOf("/")
      expect(program.matchesIn(path.slice(0, slash), path.slice(slash + 1)), path).toBe(program.matches(path))
    }
    expect(paths.map((path) => program.matches(path))).toEqual([true, true, false, false, true, false])
    expect(compileGlob("x/[id].ts").matchesIn("x", "[id].ts")).toBe(true)
    expect(compileGlob("*.ts").matchesIn("", "a.ts")).toBe(true)
  })

  it("matches extglobs and bare groups itself, as picomatch did, nested and with any glob syntax inside", () => {
    // Each row was checked against picomatch 4.0.7 with `dot: true`.
    const rows: [string, string, boolean][] = [
      ["*.+(ts|js)", "a.ts", true],
      ["*.+(ts|js)", "a.tsjs", true],
      ["*.+(ts|js)", "a.c", false],
      ["@(a|b)", "b", true],
      ["@(a|b)", "ab", false],
      ["+(a|b)", "abba", true],
      ["*(a|b)c", "c", true],
      ["*(a|b)c", "abc", true],
      ["?(a|b)c", "ac", true],
      ["?(a|b)c", "abc", false],
      ["@(*.ts|x)", ".ts", true],
      ["@(a|+(b|c))", "bcb", true],
      ["@(a|+(b|c))", "ab", false],
      ["@({a,b}|c)", "b", true],
      ["{@(a|b),c}", "a", true],
      ["@(a|[bc])", "c", true],
      ["@(a|[)|])", ")", true],
      ["@(a\\|b)", "a|b", true],
      ["@(a\\|b)", "a", false],
      ["**(a)", "xa", true],
      ["x/*(a)", "x/aa", true],
      ["a/@(b|c)/d", "a/c/d", true],
      ["(a|b)", "b", true],
      ["(a|b)", "(a|b)", true],
      ["@(a/b|c)", "a/b", true],
      // `|` and `)` outside a group, `@` and `+` without `(`, and a group never closed are literal text.
      ["a|b", "a|b", true],
      ["a|b", "a", false],
      ["a)", "a)", true],
      ["@", "@", true],
      ["a+", "aa", false],
      ["@(a|b", "@(a|b", true],
      ["@(a|b", "a", false],
      // A `!` that opens a group is the extglob; the ones before it negate the glob.
      ["!!(a)", "a", true],
      ["!!(a)", "b", false],
      ["!!!(a)", "a", false],
      ["!(a)", "b", true],
      ["!(a)", "a", false],
      ["x!(a)", "xb", true],
      ["!(*.d).ts", "a.d.ts", false],
      ["!(*.d).ts", "a.ts", true],
    ]
    for (const [glob, path, expected] of rows)
      expect(matches(glob, path), `${glob} on ${path}`).toBe(expected)
  })

  it("repeats groups with an empty alternative (picomatch 4.0.7 matched `*(a|)` as literal text), a globstar's end before them", () => {
    expect(matches("*(a|)b", "aab")).toBe(true)
    expect(matches("*(a|)b", "b")).toBe(true)
    expect(matches("+(|a)", "aaa")).toBe(true)
    expect(matches("a/**/*(b|)", "a")).toBe(true)
    expect(matches("a/**/*(b|)", "a/x/bb")).toBe(true)
  })
})

describe("!(…) matches as bash does, not as picomatch's look-ahead", () => {
  // picomatch wrote `!(list)` as a negative look-ahead over the rest of the segment: it refused any span
  // that merely starts with a match (`!(a).ts` refused `ab.ts`), and its look-ahead saw past the group
  // (`!(a|b)x` refused `abx`). Here `!(list)` is any text of the segment that no alternative matches whole.
  it.each([
    ["!(a).ts", "ab.ts", true], // picomatch: false
    ["!(a).ts", "a.ts", false],
    ["!(a|b)x", "abx", true], // picomatch: false
    ["!(a|b)x", "bx", false],
    ["!(a|b)x", "x", true],
    ["*.!(ts|js)", "a.c", true],
    ["*.!(ts|js)", "a.ts", false],
    ["*.!(ts|js)", "a.ts.x", true],
    ["*.!(ts|js)", "a.d.ts", true], // "a.d" + "." + "ts" fails, but "a" + "." + "d.ts" does not
    ["*.!(ts|js)", "ats", false],
    ["!(*.test).ts", "a.test.ts", false],
    ["!(*.test).ts", "a.ts", true],
    ["!(*.test).ts", "a.test.x.ts", true],
    ["src/!(vendor)/*.c", "src/lib/a.c", true],
    ["src/!(vendor)/*.c", "src/vendor/a.c", false],
    ["src/!(vendor)/*.c", "src/vendors/a.c", true],
    ["!(a)", "x/y", false], // never across `/`
    ["!(a)*", "a", true], // the group takes "" (which is not "a"), `*` the rest; picomatch: false
    ["!(!(a))", "a", true], // the complement of the complement
    ["!(!(a))", "b", false],
    ["+(!(a))", "aa", true], // "a" is no match of !(a), but "aa" is
    ["@(!(*.md)|README.md)", "README.md", true],
    ["@(!(*.md)|README.md)", "x.md", false],
    ["!(é1)+!,}aé", "é1é+!,}aé", true],
    ["!(é1)+!,}aé", "é1+!,}aé", false],
  ])("%s on %s → %s", (glob, path, expected) => {
    expect(matches(glob, path)).toBe(expected)
  })
})

describe("where compileGlob departs from picomatch, deliberately", () => {
  it("counts numeric brace ranges as bash does (picomatch read {1..10} as the class [1-10]: 1 or 0)", () => {
    expect(matches("log-{1..10}.txt", "log-10.txt")).toBe(true)
    expect(matches("log-{1..10}.txt", "log-7.txt")).toBe(true)
    expect(matches("log-{1..10}.txt", "log-0.txt")).toBe(false)
    expect(matches("{01..03}", "02")).toBe(true)
    expect(matches("{01..03}", "2")).toBe(false)
    expect(matches("{1..10..3}", "7")).toBe(true)
    expect(matches("{1..10..3}", "5")).toBe(false)
    expect(matches("{-2..2}", "-1")).toBe(true)
  })

  it("keeps a dot literal next to a POSIX class or a range (picomatch's `a.b{1..3}` matched `axb2`)", () => {
    expect(matches("a.b{1..3}", "axb2")).toBe(false)
    expect(matches("a.b{1..3}", "a.b2")).toBe(true)
    expect(matches("x.[[:alpha:]]", "xya")).toBe(false)
  })

  it("reads quotes and backslash-letters as plain text (picomatch: quoting, and regex escapes like \\d)", () => {
    expect(matches('"a"*', '"a"b')).toBe(true)
    expect(matches('"a"*', "ab")).toBe(false)
    expect(matches("\\d", "d")).toBe(true)
    expect(matches("\\d", "5")).toBe(false)
  })

  it("matches a line feed in a name like any other character", () => {
    expect(matches("*", "\nx")).toBe(true)
    expect(matches("**/x", "a\nb/x")).toBe(true)
  })
})

describe("bounded time", () => {
  /** The most NFA states a match of `path` may visit: the start, then at most 2 × NFA size per character. */
  const limit = (size: number, path: string) => size * (2 * path.length + 1)

  it("matches 12 wildcards against a 255-character name with at most 2 × NFA size steps per character", () => {
    const glob = "*a*b*c*d*e*f*g*h*i*j*k*l"
    const hit = `${"abcdefghijk".repeat(22)}${"x".repeat(12)}l`
    const miss = `${"a".repeat(254)}b`
    expect(hit).toHaveLength(255)
    for (const [path, expected] of [
      [hit, true],
      [miss, false],
      [hit.replace("k", "K").replaceAll("k", "K"), false],
    ] as const) {
      const program = compileGlob(glob)
      expect(program.matches(path)).toBe(expected)
      const nfa = program.automaton!.nfa
      expect(nfa.steps).toBeGreaterThan(0)
      expect(nfa.steps).toBeLessThanOrEqual(limit(nfa.size, path))
    }
  })

  it("matches a glob of many globstars against a deep path within the same bound", () => {
    const glob = `${"**/a/".repeat(30)}**/b`
    const path = Array(400).fill("a").join("/")
    const program = compileGlob(glob)
    expect(program.matches(path)).toBe(false)
    expect(program.matches(`${path}/b`)).toBe(true)
    const nfa = program.automaton!.nfa
    expect(nfa.steps).toBeLessThanOrEqual(limit(nfa.size, path) + limit(nfa.size, `${path}/b`))
  })

  it("stays right when a glob meets more DFA states than are remembered (the cache is emptied and refilled)", () => {
    // `*a` and twelve `?`: the DFA must remember which of the last 13 characters were `a`, 8,192 states.
    const program = compileGlob("x/*a????????????")
    let seed = 42
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
      return seed / 2 ** 31
    }
    const epochs = new Set<number>()
    for (let index = 0; index < 400; index++) {
      const name = Array.from({ length: 40 }, () => (random() < 0.5 ? "a" : "b")).join("")
      const expected = name[name.length - 13] === "a"
      expect(program.matchesIn("x", name)).toBe(expected)
      expect(program.matches(`x/${name}`)).toBe(expected)
      epochs.add(program.automaton!.epoch)
    }
    expect(epochs.size).toBeGreaterThan(1)
  })
})
