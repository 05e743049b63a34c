import { describe, expect, it } from "vitest"
import { isFileCommand, pathOperands } from "./operands.ts"

const words = (command: string) => command.split(" ")

/** The path operands as `word@offset:kind` (offset only when not 0). */
function paths(command: string): string[] {
  const all = words(command)
  return pathOperands(all).map(
    (operand) => `${all[operand.index]!.slice(operand.offset)}${operand.offset ? "@" : ""}:${operand.kind}`,
  )
}

describe("pathOperands", () => {
  it.each([
    ["rm -rf a b", ["a:auto", "b:auto"]],
    ["rm -- -weird x", ["-weird:auto", "x:auto"]],
    ["rm -", []],
    ["rmdir -p a/b", ["a/b:dir"]],
    ["mkdir -p -m 755 a", ["a:dir"]],
    ["mkdir --mode=755 a", ["a:dir"]],
    ["touch -d yesterday a", ["a:auto"]],
    ["touch -r ref a", ["ref:file", "a:auto"]],
    ["cp -r src dst", ["src:auto", "dst:auto"]],
    ["cp -t dir a b", ["dir:dir", "a:auto", "b:auto"]],
    ["cp --target-directory=dir a", ["dir@:dir", "a:auto"]],
    ["mv -S .bak a b", ["a:auto", "b:auto"]],
    ["ln -sf /etc/passwd x", ["/etc/passwd:auto", "x:auto"]],
    ["install -m 755 -o root a /usr/bin", ["a:auto", "/usr/bin:auto"]],
    ["chmod 755 a", ["a:auto"]],
    ["chmod -R u+x,g-w a", ["a:auto"]],
    ["chmod +x a", ["a:auto"]],
    ["chmod -x a", ["a:auto"]],
    ["chmod --reference=r a", ["r@:file", "a:auto"]],
    ["chown root:root /etc/x", ["/etc/x:auto"]],
    ["chown -R user a", ["a:auto"]],
    ["chgrp staff a", ["a:auto"]],
    ["cat a b", ["a:auto", "b:auto"]],
    ["head -n 5 a", ["a:auto"]],
    ["head -5 a", ["a:auto"]],
    ["head -c5 a", ["a:auto"]],
    ["tail -f -n 100 /var/log/x", ["/var/log/x:auto"]],
    ["tee -a out", ["out:auto"]],
    ["truncate -s 0 a", ["a:auto"]],
    ["less a", ["a:auto"]],
    ["ls -la /tmp", ["/tmp:auto"]],
    ["ls --ignore x /tmp", ["/tmp:auto"]],
    ["stat -c %s a", ["a:auto"]],
    ["wc -l a", ["a:auto"]],
    ["du -sh -d 1 /x", ["/x:auto"]],
    ["diff -u a b", ["a:auto", "b:auto"]],
    ["sort -o out -k 2 in", ["out:file", "in:auto"]],
    ["sort -T /tmp in", ["/tmp:dir", "in:auto"]],
    ["cut -d : -f 1 /etc/passwd", ["/etc/passwd:auto"]],
    ["source ./env.sh a b", ["./env.sh:file"]],
    [". ./env.sh", ["./env.sh:file"]],
    ["tree -L 2 -o out dir", ["out:file", "dir:dir"]],
  ])("%s → %j", (command, expected) => {
    expect(paths(command)).toEqual(expected)
  })

  it.each([
    ["sed s/a/b/ f", ["f:auto"]],
    ["sed -i s/a/b/ f", ["f:auto"]],
    ["sed -i.bak s/a/b/ f", ["f:auto"]],
    ["sed -i.ref /^x/d f", ["f:auto"]],
    ["sed -n /^x/p f g", ["f:auto", "g:auto"]],
    ["sed -e s/a/b/ f", ["f:auto"]],
    ["sed -ne s/a/b/p f", ["f:auto"]],
    ["sed -f script.sed f", ["script.sed:file", "f:auto"]],
    ["sed --expression=s/a/b/ f", ["f:auto"]],
    ["grep -r foo /var/log", ["/var/log:auto"]],
    ["grep -A 3 foo f", ["f:auto"]],
    ["grep -e foo -e bar f", ["f:auto"]],
    ["grep foo -e bar f", ["foo:auto", "f:auto"]],
    ["grep -f pats f", ["pats:file", "f:auto"]],
    ["grep --include=*.ts -rn foo src", ["src:auto"]],
    ["rg -t ts foo src", ["src:auto"]],
    ["rg --files /etc", ["/etc:auto"]],
    ["awk -F : {print} /etc/passwd", ["/etc/passwd:auto"]],
    ["awk -v x=1 {print} x=2 f", ["f:auto"]],
    ["awk -f prog.awk f", ["prog.awk:file", "f:auto"]],
  ])("pattern-first: %s → %j", (command, expected) => {
    expect(paths(command)).toEqual(expected)
  })

  it.each([
    ["find /etc -name x", ["/etc:dir"]],
    ["find -L . /tmp -type f", [".:dir", "/tmp:dir"]],
    ["find", []],
    ["find ( -name x )", []],
    ["tar -xzf a.tgz -C /opt", ["a.tgz:file", "/opt:dir"]],
    ["tar czf /tmp/b.tgz src", ["/tmp/b.tgz:file", "src:auto"]],
    ["tar --directory=/x -cf out.tar .", ["/x@:dir", "out.tar:file", ".:auto"]],
    ["unzip a.zip member -d /opt", ["a.zip:file", "/opt:dir"]],
    ["zip -r out.zip dir", ["out.zip:auto", "dir:auto"]],
    ["dd if=/dev/zero of=/tmp/x bs=1M", ["/dev/zero@:file", "/tmp/x@:file"]],
    ["rsync -av -e ssh src/ host:/dst", ["src/:auto"]],
    ["rsync -a --exclude-from=ex src /backup", ["ex@:file", "src:auto", "/backup:auto"]],
    ["scp -i key -P 22 f user@host:/x", ["key:file", "f:auto"]],
    ["curl -o /tmp/x.sh https://example.com", ["/tmp/x.sh:file"]],
    ["curl -sSLo /tmp/x https://example.com", ["/tmp/x:file"]],
    ["curl --output-dir /tmp -O https://example.com/a", ["/tmp:dir"]],
    ["curl -d @/etc/passwd https://x", ["/etc/passwd@:file"]],
    ["curl --data=@body.json https://x", ["body.json@:file"]],
    ["curl -d a=b https://x", []],
    ["curl https://example.com/etc/passwd", []],
    ["wget -P /opt https://x", ["/opt:dir"]],
    ["wget -O out https://x", ["out:file"]],
    ["git -C /repo status", ["/repo:dir"]],
    ["git --git-dir=/r/.git log", ["/r/.git@:dir"]],
    ["git log -C", []],
    ["git status /etc", []],
    ["make -C /x -f build.mk all", ["/x:dir", "build.mk:file"]],
    ["make all", []],
    ["npm --prefix /x install", ["/x:dir"]],
    ["pnpm -C /x install", ["/x:dir"]],
    ["yarn --cwd /x build", ["/x:dir"]],
    ["cargo build --manifest-path /x/Cargo.toml", ["/x/Cargo.toml:file"]],
    ["go -C /x build", ["/x:dir"]],
    ["terraform -chdir=/infra plan", ["/infra@:dir"]],
    ["/bin/rm /x", ["/x:auto"]],
  ])("special: %s → %j", (command, expected) => {
    expect(paths(command)).toEqual(expected)
  })

  it.each(["echo", "printf", "ls2", "python", "node", "cd", "true"])("%s is not file-like", (name) => {
    expect(isFileCommand(name)).toBe(false)
    expect(pathOperands([name, "/etc/passwd"])).toEqual([])
  })

  it("knows file commands by basename", () => {
    expect(isFileCommand("/usr/bin/rm")).toBe(true)
    expect(isFileCommand("tee")).toBe(true)
  })
})
