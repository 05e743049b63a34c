import { describe, expect, it } from "vitest"
import { commandKey, prefix, prefixLength, toolName } from "./arity.ts"

const split = (command: string) => command.split(" ")

describe("prefix", () => {
  it.each([
    // Arity 1 (and anything unknown).
    ["ls -la", "ls"],
    ["cat a b", "cat"],
    ["rm -rf build", "rm"],
    ["unknowncmd arg --flag", "unknowncmd"],
    ["./scripts/build.sh --prod", "./scripts/build.sh"],
    ["echo", "echo"],
    // Arity 2.
    ["git log --oneline -5", "git log"],
    ["git status", "git status"],
    ["npm install -D vitest", "npm install"],
    ["npm test", "npm test"],
    ["cargo build --release", "cargo build"],
    ["go test ./...", "go test"],
    ["make test", "make test"],
    ["kubectl get pods -n prod", "kubectl get"],
    ["pip install requests", "pip install"],
    ["pip3 install requests", "pip3 install"],
    ["npx vitest run", "npx vitest"],
    ["python3 script.py --x", "python3 script.py"],
    ["/usr/bin/git status -s", "/usr/bin/git status"],
    // Arity 3 and longer: the longest entry wins.
    ["npm run dev", "npm run dev"],
    ["npm run build -- --watch", "npm run build"],
    ["pnpm exec vitest", "pnpm exec vitest"],
    ["bun run dev", "bun run dev"],
    ["docker compose up -d", "docker compose up"],
    ["docker image ls", "docker image ls"],
    ["docker ps -a", "docker ps"],
    ["git stash pop", "git stash pop"],
    ["git remote add origin url", "git remote add"],
    ["go mod tidy", "go mod tidy"],
    ["aws s3 cp a b", "aws s3 cp"],
    ["gh pr create --fill", "gh pr create"],
    ["terraform workspace select prod", "terraform workspace select"],
    ["kubectl rollout status deploy/x", "kubectl rollout status"],
    ["yarn workspace web build --prod", "yarn workspace web build"],
    ["uv run pytest -x", "uv run pytest"],
    ["python -m pip install requests", "python -m pip install"],
  ])("%s → %s", (command, expected) => {
    expect(prefix(split(command)).join(" ")).toBe(expected)
  })

  it.each([
    // Leading flags (and the values of known value flags) are skipped but kept.
    ["git -C x log --oneline", "git -C x log"],
    ["git --no-pager log -p", "git --no-pager log"],
    ["git -c core.pager=cat show HEAD", "git -c core.pager=cat show"],
    ["docker --context prod compose -f x.yml up -d", "docker --context prod compose -f x.yml up"],
    ["kubectl -n prod get pods", "kubectl -n prod get"],
    ["npm --prefix web run build", "npm --prefix web run build"],
    ["pnpm --filter web dev", "pnpm --filter web dev"],
    ["cargo +nightly build", "cargo +nightly build"],
    ["make -j 8 test", "make -j 8 test"],
    ["make -C sub all", "make -C sub all"],
    ["make CC=clang all", "make CC=clang all"],
    // An unknown flag is skipped alone; its value (if any) then counts as the subcommand: narrower, still safe.
    ["git --frobnicate yes push", "git --frobnicate yes"],
    // Flags that are the subcommand, with their value.
    ["python -m pytest -x tests", "python -m pytest"],
    ["python3.12 -u -m http.server 8000", "python3.12 -u -m http.server"],
    ["node -e code arg", "node -e code"],
    ["bash -c script arg0", "bash -c script"],
    ["bash -lc script", "bash -lc script"],
  ])("flags: %s → %s", (command, expected) => {
    expect(prefix(split(command)).join(" ")).toBe(expected)
  })

  it.each([
    // Ran out of words before the arity: every token (never the too-broad `git *`).
    ["git --version", "git --version"],
    ["git", "git"],
    ["npm run", "npm run"],
    ["docker compose", "docker compose"],
    ["python", "python"],
  ])("short: %s → %s", (command, expected) => {
    expect(prefix(split(command)).join(" ")).toBe(expected)
  })

  it("stops flag handling at --", () => {
    expect(prefix(["git", "--", "-weird"])).toEqual(["git", "--", "-weird"])
  })

  it("counts an unknown word (source text) as a word", () => {
    expect(prefix(["git", "$SUB", "x"])).toEqual(["git", "$SUB"])
  })

  it("is 0 for no words and at least 1 otherwise", () => {
    expect(prefixLength([])).toBe(0)
    expect(prefixLength(["x"])).toBe(1)
  })

  it("flags never count as the subcommand (opencode's `git -C *` is not produced)", () => {
    for (const command of ["git -C x status", "git -C x push --force"]) {
      const words = prefix(split(command))
      expect(words.at(-1)!.startsWith("-")).toBe(false)
    }
  })
})

describe("toolName", () => {
  it.each([
    ["git", "git"],
    ["/usr/bin/git", "git"],
    ["python3", "python"],
    ["python3.12", "python"],
    ["/opt/homebrew/bin/pip3", "pip"],
    ["node22", "node"],
    ["x264", "x264"],
    ["docker-compose", "docker-compose"],
  ])("%s → %s", (command, expected) => {
    expect(toolName(command)).toBe(expected)
  })
})

describe("commandKey", () => {
  it.each<[string, string[]]>([
    ["rm -rf build", ["rm"]],
    ["/bin/rm x", ["rm"]],
    ["git -C sub push --force origin", ["git", "push"]],
    ["git stash drop 1", ["git", "stash", "drop"]],
    ["git stash", ["git", "stash"]],
    ["docker --context prod system prune -a", ["docker", "system", "prune"]],
    ["python -m pytest -x", ["python", "-m pytest"]],
    ["", []],
  ])("%s → %j", (command, key) => {
    expect(commandKey(command === "" ? [] : split(command))).toEqual(key)
  })
})
