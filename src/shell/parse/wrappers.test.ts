import { describe, expect, it } from "vitest"
import { type Inner, unwrap } from "./wrappers.ts"

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
  ])("%s → %j", (command, expected) => {
    expect(inner(command)).toEqual(expected)
  })

  it("reports env -C and direnv exec as the wrapped command's directory", () => {
    const env = unwrap(words("env -C /tmp rm x"))[0]!
    expect(env).toMatchObject({ kind: "exec", start: 3, chdir: 2 })
    const direnv = unwrap(words("direnv exec /x make"))[0]!
    expect(direnv).toMatchObject({ kind: "exec", start: 3, chdir: 2 })
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
