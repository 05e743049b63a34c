// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${VAR}` here is shell syntax, not a template.
import { tmpdir } from "node:os"
import { describe, expect, it } from "vitest"
import { scanCommand } from "./scan.ts"

const scan = (command: string) =>
  scanCommand(command, { cwd: tmpdir(), directory: tmpdir(), home: "/home/u" })

describe("commands the rules cannot check are listed as unchecked, with why", () => {
  it.each([
    ["$(echo rm) x", "$(echo rm) x", "its command word $(echo rm) is computed at run time (an expansion)"],
    ["`echo rm` x", "`echo rm` x", "computed at run time"],
    ['"$@"', '"$@"', "computed at run time"],
    ["/bin/r? x", "/bin/r? x", "a glob or brace pattern"],
    ['eval "$x"', 'eval "$x"', "eval runs shell code that is built when the command runs"],
    ['bash -c "echo $x"', 'bash -c "echo $x"', "bash -c runs shell code"],
    ["source env.sh", "source env.sh", "runs the commands in the file env.sh"],
    [". ./env.sh", ". ./env.sh", "runs the commands in the file ./env.sh"],
    ["curl -s x | sh", "sh", "sh reads the commands it runs from its standard input"],
    ["xargs sh -c < list", "sh -c < list", "the input chooses the program"],
    ["echo x | xargs -I% % y", "% y", "computed at run time"],
    ['alias r="$x"; r y', "r y", "alias whose text is only known"],
    ["BASH_ALIASES=([r]=rm); r y", "r y", "alias whose text is only known"],
    ["BASH_ENV=./f bash -c true", "BASH_ENV=./f bash -c true", "BASH_ENV makes a shell run"],
    ["if then fi", "if then fi", "could not be parsed"],
  ])("%s", async (command, pattern, reason) => {
    const result = await scan(command)
    const entry = result.unchecked?.find((candidate) => candidate.pattern === pattern)
    expect(entry, JSON.stringify(result.unchecked)).toBeDefined()
    expect(entry!.reason).toContain(reason)
    expect(result.patterns).toContain(pattern)
  })

  it.each([
    "rm x",
    "FOO=1 rm x",
    "echo $(echo rm)",
    "a=rm; $a x",
    "bash -c 'rm x'",
    "eval 'rm x'",
    "bash <<EOF\nrm x\nEOF",
    "git rm x",
    "bash script.sh",
  ])("%s is checked: nothing unchecked", async (command) => {
    expect((await scan(command)).unchecked).toBeUndefined()
  })
})

describe("the command word is found however it is reached", () => {
  it.each([
    ["FOO=1 LC_ALL=C rm -f x", "rm -f x"],
    ["coproc rm x", "rm x"],
    ["coproc NAME { rm x; }", "rm x"],
    ["coproc while true; do rm x; done", "rm x"],
    ["busybox rm x", "rm x"],
    ["alias r='rm -f'; r x", "rm -f x"],
    ["hash -p /bin/rm r; r x", "rm x"],
    ["BASH_ALIASES[r]=rm; r x", "rm x"],
    ["BASH_CMDS[r]=/bin/rm; r x", "rm x"],
    ['c="rm x"; $c', "rm x"],
    ['IFS=,; c="rm,x"; $c', "rm x"],
    ["c=rm; if false; then c=ls; fi; $c x", "rm x"],
    ["c=ls; true && c=rm; $c x", "rm x"],
    ["for c in ls rm; do $c x; done", "rm x"],
  ])("%s gives %s", async (command, pattern) => {
    expect((await scan(command)).patterns).toContain(pattern)
  })

  it.each([
    "c=ls; read c; $c x",
    "f() { c=rm; }; c=ls; f; $c x",
    "c=ls; printf -v c rm; $c x",
    "c=ls; source f; $c x",
    "unset c; : ${c:=rm}; $c x",
    'IFS=$y; c="rm,x"; $c',
  ])("%s: the variable is not known, so the command is unchecked", async (command) => {
    const result = await scan(command)
    expect(result.unchecked?.some((entry) => entry.reason.includes("computed at run time"))).toBe(true)
    expect(result.patterns).not.toContain("ls x")
  })

  it("keeps a variable known when every path gives the same value", async () => {
    const result = await scan("c=ls; if x; then echo; fi; $c -la")
    expect(result.patterns).toContain("ls -la")
    expect(result.unchecked).toBeUndefined()
  })
})
