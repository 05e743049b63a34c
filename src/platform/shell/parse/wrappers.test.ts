import { describe, expect, it } from "vitest"
import { awaitsCommand, type Inner, unwrap } from "./wrappers.ts"

const words = (command: string) => command.split(" ")

/** The wrapped command (exec) or script text, as words joined back. */
function inner(command: string): string[] {
  const all = words(command)
  return unwrap(all).map((entry: Inner) => {
    if (entry.kind === "exec") return `exec:${all.slice(entry.start, entry.end).join(" ")}`
    if (entry.kind === "script") return `script:${all.slice(entry.from, entry.to).join(" ")}`
    return "stdin"
  })
}

describe("unwrap", () => {
  it.each([
    ["sudo rm -rf x", ["exec:rm -rf x"]],
    ["sudo -u bob -H rm x", ["exec:rm x"]],
    ["sudo -ubob rm x", ["exec:rm x"]],
    ["sudo --user=bob rm x", ["exec:rm x"]],
    ["sudo FOO=1 make", ["exec:make"]],
    ["sudo -- rm x", ["exec:rm x"]],
    ["sudo -l", []],
    ["sudo -v", []],
    ["doas -u root rm x", ["exec:rm x"]],
    ["env FOO=1 BAR=2 make test", ["exec:make test"]],
    ["env -i PATH=/bin sh", ["exec:sh"]],
    ["env -u HOME ls", ["exec:ls"]],
    ["env", []],
    ["env FOO=1", []],
    ["nohup npm start", ["exec:npm start"]],
    ["time make", ["exec:make"]],
    ["time -p make", ["exec:make"]],
    ["timeout 5 curl x", ["exec:curl x"]],
    ["timeout -s KILL -k 2 5s make", ["exec:make"]],
    ["timeout --signal=KILL 5 make", ["exec:make"]],
    ["nice -n 5 make", ["exec:make"]],
    ["nice -10 make", ["exec:make"]],
    ["ionice -c 3 make", ["exec:make"]],
    ["ionice -p 123", []],
    ["stdbuf -oL tail -f x", ["exec:tail -f x"]],
    ["stdbuf -o L tail", ["exec:tail"]],
    ["setsid -f server", ["exec:server"]],
    ["taskset 0x1 make", ["exec:make"]],
    ["command rm x", ["exec:rm x"]],
    ["command -p rm x", ["exec:rm x"]],
    ["command -v git", []],
    ["builtin cd x", ["exec:cd x"]],
    ["exec -a name server", ["exec:server"]],
    ["exec", []],
    ["xargs rm", ["exec:rm"]],
    ["xargs -n 1 -I {} cp {} dst", ["exec:cp {} dst"]],
    ["xargs -0 -P4 gzip", ["exec:gzip"]],
    ["xargs", []],
    ["strace -f -o log make", ["exec:make"]],
    ["uv run --with rich python x.py", ["exec:python x.py"]],
    ["poetry run pytest", ["exec:pytest"]],
    ["bundle exec rake", ["exec:rake"]],
    ["pnpm exec tsc", ["exec:tsc"]],
    ["npm exec -- vitest", ["exec:vitest"]],
    ["npm exec -c script", ["script:script"]],
    ["direnv exec /x make", ["exec:make"]],
    ["conda run -n env python", ["exec:python"]],
    ["uv pip install x", []],
    ["find . -exec rm {} ;", ["exec:rm {}"]],
    ["find . -name x -execdir chmod 644 {} + -o -ok rm {} ;", ["exec:chmod 644 {}", "exec:rm {}"]],
    ["find . -delete", []],
    ["fd -e o -x rm", ["exec:rm"]],
    ["watch -n 1 ls -la", ["script:ls -la"]],
    ["watch -x ls -la", ["exec:ls -la"]],
    ["eval git push", ["script:git push"]],
    ["eval", []],
    ["bash -c script", ["script:script"]],
    ["bash -lc script x y", ["script:script"]],
    ["sh -ec script", ["script:script"]],
    ["zsh -c script", ["script:script"]],
    ["bash -o pipefail -c script", ["script:script"]],
    ["dash -c script", ["script:script"]],
    ["/bin/bash -c script", ["script:script"]],
    ["bash -c", []],
    ["bash script.sh", []],
    ["bash -x script.sh", []],
    ["bash", ["stdin"]],
    ["sh -s arg", ["stdin"]],
    ["bash -", ["stdin"]],
    ["env -S script", ["script:script"]],
    ["su -c script root", ["script:script"]],
    ["su - root", []],
    ["trap script EXIT", ["script:script"]],
    ["trap -- script INT TERM", ["script:script"]],
    ["trap -p", []],
    ["trap - EXIT", []],
    ["git status", []],
    ["ls", []],
    // Programs that run another program.
    ["coproc rm x", ["exec:rm x"]],
    ["coproc NAME { rm x", ["exec:{ rm x"]],
    ["coproc { rm x", ["exec:{ rm x"]],
    ["busybox rm x", ["exec:rm x"]],
    ["toybox rm x", ["exec:rm x"]],
    ["chroot / rm x", ["exec:rm x"]],
    ["chroot --userspec=1:1 / rm x", ["exec:rm x"]],
    ["chrt -r 5 rm x", ["exec:rm x"]],
    ["chrt -p 5 123", []],
    ["flock -w 5 lock rm x", ["exec:rm x"]],
    ["flock lock -c script", ["script:script"]],
    ["flock 9", []],
    ["unshare -r rm x", ["exec:rm x"]],
    ["runuser -u bob rm x", ["exec:rm x"]],
    ["su root -c script", ["script:script"]],
    ["script -q -c script /dev/null", ["script:script"]],
    ["script log", []],
    ["systemd-run --user -p Nice=5 rm x", ["exec:rm x"]],
    ["faketime 2020-01-01 rm x", ["exec:rm x"]],
    ["xvfb-run -a rm x", ["exec:rm x"]],
    ["npx -c script", ["script:script"]],
    ["npx cowsay", []],
    ["parallel rm ::: a b", ["script:rm"]],
    ["parallel -j 2 rm {} ::: a", ["script:rm {}"]],
    ["parallel ::: a", ["stdin"]],
    ["env --split-string=script", ["script:--split-string=script"]],
  ])("%s → %j", (command, expected) => {
    expect(inner(command)).toEqual(expected)
  })

  it("reports env -C and direnv exec as the wrapped command's directory", () => {
    const env = unwrap(words("env -C /tmp rm x"))[0]!
    expect(env).toMatchObject({ kind: "exec", start: 3, chdir: 2 })
    const direnv = unwrap(words("direnv exec /x make"))[0]!
    expect(direnv).toMatchObject({ kind: "exec", start: 3, chdir: 2 })
  })

  it("knows the text xargs -I / -i / --replace fills in", () => {
    expect(unwrap(words("xargs -I X sh -c X"))[0]).toMatchObject({ kind: "exec", start: 3, placeholder: "X" })
    expect(unwrap(words("xargs -I% rm %"))[0]).toMatchObject({ placeholder: "%" })
    expect(unwrap(words("xargs -i rm {}"))[0]).toMatchObject({ placeholder: "{}" })
    expect(unwrap(words("xargs --replace=@ rm @"))[0]).toMatchObject({ placeholder: "@" })
    expect(unwrap(words("xargs rm"))[0]).not.toHaveProperty("placeholder")
  })

  it("gives the offset of an inline script flag's value", () => {
    expect(unwrap(words("env --split-string=rm"))[0]).toMatchObject({ kind: "script", prefix: 15 })
    expect(unwrap(words("env -Srm"))[0]).toMatchObject({ kind: "script", prefix: 2 })
  })

  it.each([
    ["sh -c", true],
    ["bash -lc", true],
    ["sudo", true],
    ["sudo -u bob", true],
    ["env", true],
    ["env -i FOO=1", true],
    ["timeout", true],
    ["nice -n 5", true],
    ["sudo -l", false],
    ["rm", false],
    ["rm -f", false],
    ["sh", false],
    ["sh -c script", false],
    ["echo", false],
  ])("awaitsCommand(%s) is %s: more words from input would choose the program", (command, expected) => {
    expect(awaitsCommand(words(command))).toBe(expected)
  })

  it("marks xargs as giving arguments from input", () => {
    expect(unwrap(words("xargs rm"))[0]).toMatchObject({ input: true, via: "xargs" })
  })

  it("labels how the command was reached", () => {
    expect(unwrap(words("bash -c x"))[0]!.via).toBe("bash -c")
    expect(unwrap(words("find . -exec rm {} ;"))[0]!.via).toBe("find -exec")
    expect(unwrap(words("uv run x"))[0]!.via).toBe("uv run")
  })
})
