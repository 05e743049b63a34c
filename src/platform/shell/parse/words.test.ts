// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${VAR}` here is shell syntax, not a template.
import { describe, expect, it } from "vitest"
import { type Node, parseBash } from "./parser.ts"
import {
  decodeAnsiC,
  decodeDoubleQuoted,
  type Expansions,
  knownValue,
  normalisedText,
  type WordValue,
  wordValues,
} from "./words.ts"

const env: Expansions = {
  home: "/home/u",
  cwd: "/p",
  oldpwd: "/old",
  vars: new Map<string, readonly string[] | undefined>([
    ["X", ["/etc"]],
    ["F", ["a", "b"]],
    ["U", undefined],
    ["G", ["*.ts"]],
  ]),
}

/** The values of the first argument of `echo <word>`. */
async function values(word: string): Promise<WordValue[]> {
  const tree = await parseBash(`echo ${word}`)
  const command = tree!.rootNode.namedChildren[0]!
  const argument = command.childrenForFieldName("argument")[0]!
  const result = wordValues(argument, env)
  tree!.delete()
  return result
}

const text = (value: WordValue) => value.text
const known = (value: WordValue) => value.dynamicAt === value.text.length
const glob = (value: WordValue) => (value.globAt === value.text.length ? undefined : value.globAt)

describe("wordValues", () => {
  it.each([
    ["plain", "plain"],
    ["'single  quoted $X'", "single  quoted $X"],
    ['"double $X"', "double /etc"],
    ['"esc \\" \\$ \\\\ \\n"', 'esc " $ \\ \\n'],
    ["a\\ b", "a b"],
    ["$'tab\\there\\x41\\101'", "tab\there\x41A"],
    ["/et\"c\"/'x'", "/etc/x"],
    ["~", "/home/u"],
    ["~/x", "/home/u/x"],
    ["~bob/x", "/home/bob/x"],
    ["~+/x", "/p/x"],
    ["~-/x", "/old/x"],
    ["x~", "x~"],
    ['"~/x"', "~/x"],
    ["$HOME/.ssh", "/home/u/.ssh"],
    ["${HOME}/.ssh", "/home/u/.ssh"],
    ["$PWD/a", "/p/a"],
    ["$OLDPWD", "/old"],
    ["$X/hosts", "/etc/hosts"],
    ['"$(pwd)/x"', "/p/x"],
    ["`pwd`/x", "/p/x"],
    ["<(ls)", "/dev/fd/63"],
    ["café/ü", "café/ü"],
  ])("%s → %s", async (word, expected) => {
    const result = await values(word)
    expect(result.map(text)).toEqual([expected])
    expect(known(result[0]!)).toBe(true)
  })

  it.each([
    ["$U/x", "$U/x", 0],
    ["/opt/$U", "/opt/$U", 5],
    ["${X:-/y}", "${X:-/y}", 0],
    ["$1", "$1", 0],
    ["$(git rev-parse --show-toplevel)/x", "$(git rev-parse --show-toplevel)/x", 0],
    ['"/a/$(date)"', "/a/$(date)", 3],
    ["$UNSET_ANYWHERE", "$UNSET_ANYWHERE", 0],
  ])("unknown: %s → %s, dynamic from %d", async (word, expected, at) => {
    const [value] = await values(word)
    expect(value!.text).toBe(expected)
    expect(value!.dynamicAt).toBe(at)
    expect(knownValue([value!])).toBeUndefined()
  })

  it.each([
    ["*.ts", 0],
    ["/tmp/build-*", 11],
    ["src/?.ts", 4],
    ["src/[ab].ts", 4],
    ["{a,b}", 0],
    ["'*.ts'", undefined],
    ['"/tmp/*"', undefined],
    ["\\*.ts", undefined],
    ["$G", 0],
    ['"$G"', undefined],
  ])("globs: %s → glob at %s", async (word, at) => {
    const [value] = await values(word)
    expect(glob(value!)).toBe(at)
  })

  it("expands a multi-valued (loop) variable to one value each", async () => {
    expect((await values("/x/$F.txt")).map(text)).toEqual(["/x/a.txt", "/x/b.txt"])
  })

  it("knownValue is undefined for several values", async () => {
    expect(knownValue(await values("$F"))).toBeUndefined()
    expect(knownValue(await values("'x'"))).toBe("x")
  })
})

describe("decoders", () => {
  it("decodes double-quoted escapes only where bash does", () => {
    expect(decodeDoubleQuoted('a\\"b\\\\c\\$d\\`e\\nf\\\ng')).toBe('a"b\\c$d`e\\nfg')
  })

  it("decodes ANSI-C strings", () => {
    expect(decodeAnsiC("a\\nb\\t\\x41\\u00e9\\101\\'\\\\\\e")).toBe("a\nb\tAé" + "A'\\\x1b")
    expect(decodeAnsiC("\\cA")).toBe("\x01")
  })
})

describe("normalisedText", () => {
  async function first(command: string): Promise<string> {
    const tree = await parseBash(command)
    const node: Node = tree!.rootNode.namedChildren[0]!
    const result = normalisedText(node)
    tree!.delete()
    return result
  }

  it.each([
    ["ls    -la", "ls -la"],
    ["git\tstatus", "git status"],
    ["ls \\\n   -la", "ls -la"],
    ['echo "a    b"', 'echo "a    b"'],
    ["echo 'x  y'   z", "echo 'x  y' z"],
    ["FOO=1   make   test", "FOO=1 make test"],
    ['echo a"b"', 'echo a"b"'],
  ])("%j → %j", async (command, expected) => {
    expect(await first(command)).toBe(expected)
  })
})
