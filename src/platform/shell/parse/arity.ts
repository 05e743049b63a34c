/**
 * Command arity: how many words name "the command" for an "always" approval.
 *
 * `ARITY` maps a command (its name, or its name and subcommands) to the number of words that name it:
 * `ls` 1 (`ls -la` → `ls *`), `git` 2 (`git log --oneline` → `git log *`), `npm run` 3
 * (`npm run dev` → `npm run dev *`), `docker compose` 3 (`docker compose up -d` → `docker compose up *`).
 * The longest entry that matches the command's words wins; a command not in the table has arity 1.
 *
 * Flags (decided; opencode counts them, so `git -C x status` gives the too-broad `git -C *`):
 * - Words are counted from the command name and its subcommands only. Flags before or between
 *   subcommands do not count, and neither do the values of the flags a tool is known to take
 *   (`FLAGS`, e.g. git's `-C <path>`), nor a purely numeric token after a flag (`make -j 4 test`).
 * - Skipped flags stay in the prefix, verbatim, so that the "always" pattern matches the command it came
 *   from: `git -C x log --oneline` → `git -C x log *` (a `git log *` rule could never match the text
 *   `git -C x log …`, and `git -C *` would allow every git subcommand in any repository).
 * - Flags after the last counted word are not part of the prefix: `ls -la` → `ls *`.
 * - Some flags introduce what is in effect the subcommand and count as one word with their value
 *   (`WORD_FLAGS`): `python -m pytest -x` → `python -m pytest *`, `node -e <code>` → `node -e <code> *`.
 * - After `--`, nothing more is treated as a flag.
 * - When the words run out before the arity is reached, the prefix is every token
 *   (`git --version` → `git --version *`, never `git *`).
 * - A token whose value the scan cannot know (`$SUB`) counts as a word and ends the lookup.
 * - Lookup uses the command's basename with a trailing version stripped when needed
 *   (`/usr/bin/python3.12` looks up `python`).
 */

/** Words that name a command, by the command's leading words. */
export const ARITY: Readonly<Record<string, number>> = {
  // Version control
  git: 2,
  "git config": 3,
  "git remote": 3,
  "git stash": 3,
  "git submodule": 3,
  "git worktree": 3,
  "git notes": 3,
  "git bisect": 3,
  "git lfs": 3,
  "git sparse-checkout": 3,
  "git reflog": 3,
  hg: 2,
  svn: 2,
  jj: 2,
  gh: 3,
  glab: 3,
  // JavaScript
  npm: 2,
  "npm run": 3,
  "npm run-script": 3,
  "npm exec": 3,
  "npm init": 3,
  "npm view": 3,
  "npm config": 3,
  "npm cache": 3,
  "npm pkg": 3,
  npx: 2,
  pnpm: 2,
  "pnpm run": 3,
  "pnpm exec": 3,
  "pnpm dlx": 3,
  "pnpm create": 3,
  pnpx: 2,
  yarn: 2,
  "yarn run": 3,
  "yarn dlx": 3,
  "yarn exec": 3,
  "yarn workspace": 4,
  bun: 2,
  "bun run": 3,
  "bun x": 3,
  "bun create": 3,
  bunx: 2,
  deno: 2,
  "deno run": 3,
  "deno task": 3,
  node: 2,
  tsx: 2,
  "ts-node": 2,
  nx: 2,
  turbo: 2,
  "turbo run": 3,
  lerna: 2,
  vite: 2,
  vitest: 2,
  ng: 2,
  // Python
  python: 2,
  "python -m pip": 3,
  pip: 2,
  pipx: 2,
  uv: 2,
  "uv run": 3,
  "uv pip": 3,
  "uv tool": 3,
  uvx: 2,
  poetry: 2,
  "poetry run": 3,
  pipenv: 2,
  "pipenv run": 3,
  conda: 2,
  "conda env": 3,
  mamba: 2,
  pytest: 1,
  // Other languages and build tools
  cargo: 2,
  rustup: 2,
  "rustup toolchain": 3,
  "rustup component": 3,
  "rustup target": 3,
  go: 2,
  "go mod": 3,
  "go tool": 3,
  "go work": 3,
  make: 2,
  cmake: 2,
  just: 2,
  task: 2,
  mise: 2,
  "mise run": 3,
  bazel: 2,
  gradle: 2,
  gradlew: 2,
  mvn: 2,
  mvnw: 2,
  dotnet: 2,
  swift: 2,
  "swift package": 3,
  composer: 2,
  php: 2,
  "php artisan": 3,
  bundle: 2,
  "bundle exec": 3,
  gem: 2,
  rake: 2,
  rails: 2,
  mix: 2,
  stack: 2,
  cabal: 2,
  opam: 2,
  nix: 2,
  "nix flake": 3,
  prisma: 2,
  "prisma migrate": 3,
  "prisma db": 3,
  // Containers, clusters, clouds
  docker: 2,
  "docker compose": 3,
  "docker container": 3,
  "docker image": 3,
  "docker network": 3,
  "docker volume": 3,
  "docker builder": 3,
  "docker buildx": 3,
  "docker system": 3,
  "docker context": 3,
  "docker manifest": 3,
  "docker plugin": 3,
  "docker secret": 3,
  "docker service": 3,
  "docker stack": 3,
  "docker swarm": 3,
  "docker node": 3,
  "docker-compose": 2,
  podman: 2,
  "podman compose": 3,
  "podman container": 3,
  "podman image": 3,
  "podman network": 3,
  "podman volume": 3,
  "podman machine": 3,
  kubectl: 2,
  "kubectl config": 3,
  "kubectl rollout": 3,
  "kubectl kustomize": 3,
  "kubectl auth": 3,
  helm: 2,
  "helm repo": 3,
  kind: 2,
  "kind create": 3,
  "kind delete": 3,
  minikube: 2,
  skaffold: 2,
  terraform: 2,
  "terraform workspace": 3,
  "terraform state": 3,
  tofu: 2,
  "tofu workspace": 3,
  "tofu state": 3,
  pulumi: 2,
  "pulumi stack": 3,
  aws: 3,
  az: 3,
  gcloud: 3,
  doctl: 3,
  vercel: 2,
  netlify: 2,
  fly: 2,
  flyctl: 2,
  heroku: 2,
  firebase: 2,
  supabase: 2,
  wrangler: 2,
  vault: 2,
  "vault kv": 3,
  "vault auth": 3,
  consul: 2,
  "consul kv": 3,
  // System
  systemctl: 2,
  launchctl: 2,
  brew: 2,
  "brew services": 3,
  apt: 2,
  "apt-get": 2,
  dnf: 2,
  yum: 2,
  snap: 2,
  tmux: 2,
  ip: 2,
  "ip addr": 3,
  "ip link": 3,
  "ip route": 3,
  "ip netns": 3,
  openssl: 2,
  ollama: 2,
  psql: 2,
  mysql: 2,
  sqlite3: 2,
  "redis-cli": 2,
  mongosh: 2,
  bash: 2,
  sh: 2,
  zsh: 2,
}

/** Flags (by tool) whose value is the next token, so the value is not a subcommand. */
export const FLAGS: Readonly<Record<string, readonly string[]>> = {
  git: [
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--config-env",
    "--super-prefix",
    "--attr-source",
  ],
  docker: [
    ...[
      "-c",
      "--context",
      "-H",
      "--host",
      "--config",
      "-l",
      "--log-level",
      "--tlscacert",
      "--tlscert",
      "--tlskey",
    ],
    ...["-f", "--file", "-p", "--project-name", "--profile", "--env-file", "--project-directory", "--ansi"],
    ...["--progress", "--parallel"],
  ],
  podman: [
    ...["-c", "--connection", "--url", "--identity", "--root", "--runroot", "--log-level"],
    ...["-f", "--file", "-p", "--project-name", "--profile", "--env-file"],
  ],
  "docker-compose": [
    "-f",
    "--file",
    "-p",
    "--project-name",
    "--profile",
    "--env-file",
    "--project-directory",
  ],
  kubectl: [
    ...["-n", "--namespace", "--context", "--kubeconfig", "--cluster", "--user", "-s", "--server"],
    ...["--as", "--as-group", "--token", "-l", "--selector", "-o", "--output", "-f", "--filename", "-c"],
    ...["--container", "--request-timeout", "-v"],
  ],
  helm: ["-n", "--namespace", "--kube-context", "--kubeconfig"],
  npm: ["--prefix", "-w", "--workspace", "--loglevel", "--registry", "--cache", "--userconfig"],
  pnpm: ["-C", "--dir", "--filter", "-F", "--loglevel", "--reporter"],
  yarn: ["--cwd"],
  bun: ["--cwd", "--config"],
  cargo: ["-C", "--config", "-Z", "--color", "--manifest-path"],
  go: ["-C"],
  make: ["-C", "--directory", "-f", "--file", "--makefile", "-o", "--old-file", "-W", "--what-if", "-I"],
  python: ["-W", "-X"],
  node: ["-r", "--require", "--import", "--loader", "--experimental-loader", "-C", "--conditions"],
  gh: ["-R", "--repo"],
  aws: ["--profile", "--region", "--output", "--endpoint-url"],
  gcloud: ["--project", "--account", "--configuration", "--format"],
  az: ["--subscription", "-o", "--output"],
  uv: ["--directory", "--project", "-p", "--python", "--with", "--package", "--config-file", "--cache-dir"],
  poetry: ["-C", "--directory", "-P", "--project"],
  just: ["-f", "--justfile", "-d", "--working-directory"],
  mvn: ["-f", "--file", "-pl", "--projects"],
  gradle: ["-p", "--project-dir", "-b", "--build-file"],
  gradlew: ["-p", "--project-dir", "-b", "--build-file"],
  systemctl: ["-H", "--host", "-M", "--machine", "-t", "--type", "-p", "--property"],
  ip: ["-n", "-netns", "-f", "-family"],
  psql: [
    "-h",
    "--host",
    "-p",
    "--port",
    "-U",
    "--username",
    "-d",
    "--dbname",
    "-c",
    "--command",
    "-f",
    "--file",
  ],
  mysql: ["-h", "--host", "-P", "--port", "-u", "--user", "-e", "--execute", "-D", "--database"],
  tmux: ["-L", "-S", "-f"],
  bash: ["-o", "+o", "-O", "+O", "--rcfile", "--init-file"],
  sh: ["-o", "+o"],
  zsh: ["-o", "+o"],
}

/** Flags that, with their value, are the subcommand: `python -m pytest`, `node -e <code>`. */
export const WORD_FLAGS: Readonly<Record<string, readonly string[]>> = {
  python: ["-m", "-c"],
  node: ["-e", "--eval", "-p", "--print"],
  deno: ["--eval"],
  bun: ["-e", "--eval"],
  ruby: ["-e"],
  perl: ["-e", "-E"],
  bash: ["-c"],
  sh: ["-c"],
  zsh: ["-c"],
}

/** Tools whose `+word` tokens are options (`cargo +nightly build`, `bash +o posix`). */
const PLUS_OPTIONS: ReadonlySet<string> = new Set(["cargo", "rustup", "bash", "sh", "zsh"])
/** Tools whose `NAME=value` arguments are settings, not subcommands (`make CC=clang test`). */
const ASSIGNMENT_OPTIONS: ReadonlySet<string> = new Set(["make"])

/** Every proper prefix of a multi-word table key, so the lookup knows when a longer key may follow. */
const PARTIAL_KEYS: ReadonlySet<string> = (() => {
  const partial = new Set<string>()
  for (const key of Object.keys(ARITY)) {
    const words = key.split(" ")
    for (let end = 1; end < words.length; end++) partial.add(words.slice(0, end).join(" "))
  }
  return partial
})()

/** The name the tables know a command by: its basename, with a trailing version removed if needed. */
export function toolName(command: string): string {
  const base = command.slice(command.lastIndexOf("/") + 1)
  if (base in ARITY || base in FLAGS || base in WORD_FLAGS) return base
  const unversioned = base.replace(/-?[0-9][0-9.]*$/, "")
  if (unversioned !== "" && (unversioned in ARITY || unversioned in WORD_FLAGS)) return unversioned
  return base
}

/**
 * How many of `words` (the command name first, then its arguments, quotes removed; an argument whose value
 * is unknown is given as its source text) form the "always" prefix. Always at least 1 for a non-empty list.
 */
export function prefixLength(words: readonly string[]): number {
  if (words.length === 0) return 0
  const tool = toolName(words[0]!)
  const valueFlags = FLAGS[tool] ?? []
  const wordFlags = WORD_FLAGS[tool] ?? []
  const key = [tool]
  // endAt[k]: the token count once k words are taken.
  const endAt = [0, 1]
  let best = ARITY[tool] ?? 1
  let options = true
  let i = 1
  while (i < words.length && (key.length < best || PARTIAL_KEYS.has(key.join(" ")))) {
    // Skip the flags before the next word.
    let word: string | undefined
    while (i < words.length) {
      const token = words[i]!
      if (options && token === "--") {
        options = false
        i++
        continue
      }
      if (options && wordFlags.includes(token) && i + 1 < words.length) {
        word = `${token} ${words[i + 1]}`
        i += 2
        break
      }
      if (options && isOption(tool, token)) {
        i++
        if (i < words.length && (takesValue(valueFlags, token) || /^[0-9]+$/.test(words[i]!))) i++
        continue
      }
      word = token
      i++
      break
    }
    if (word === undefined) break
    key.push(word)
    endAt[key.length] = i
    const arity = ARITY[key.join(" ")]
    if (arity !== undefined) best = arity
  }
  if (key.length < best) return words.length
  return endAt[best]!
}

/** The prefix words themselves: `prefix(["git", "log", "-5"])` is `["git", "log"]`. */
export function prefix(words: readonly string[]): string[] {
  return words.slice(0, prefixLength(words))
}

function isOption(tool: string, token: string): boolean {
  if (token.length > 1 && token.startsWith("-")) return true
  if (token.length > 1 && token.startsWith("+") && PLUS_OPTIONS.has(tool)) return true
  return ASSIGNMENT_OPTIONS.has(tool) && /^[A-Za-z_][A-Za-z0-9_]*=/.test(token)
}

function takesValue(valueFlags: readonly string[], token: string): boolean {
  return !token.includes("=") && valueFlags.includes(token)
}
