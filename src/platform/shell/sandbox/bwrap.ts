import { spawnSync } from "node:child_process"
import { accessSync, constants, existsSync, mkdirSync, readFileSync, statSync } from "node:fs"
import { delimiter, isAbsolute, join, resolve, sep } from "node:path"

/** What a sandboxed command may do. */
export interface SandboxPolicy {
  /** The project directory: writable. */
  readonly project: string
  /** The temp dir: writable (commands need somewhere to put scratch files). */
  readonly tmp: string
  /** More writable directories (config `shell.sandbox.writable`). */
  readonly writable?: readonly string[]
  /** Paths kept read-only even inside a writable directory (the data dir, `.git/hooks`, ...). */
  readonly protect?: readonly string[]
  /** Allow network access (default: none, not even loopback). */
  readonly network?: boolean
  /** Where the command starts. */
  readonly cwd: string
}

export type Availability =
  | { readonly available: true; readonly bwrap: string }
  | {
      readonly available: false
      readonly reason: string
    }

let cached: Availability | undefined

/**
 * Whether commands can be sandboxed here: Linux, a `bwrap` executable, and namespaces it may create
 * (checked once per process by running `true` in the same kind of sandbox the commands get).
 */
export function sandboxAvailability(
  options: { env?: NodeJS.ProcessEnv; refresh?: boolean } = {},
): Availability {
  if (cached && !options.refresh) return cached
  cached = probe(options.env ?? process.env)
  return cached
}

function probe(env: NodeJS.ProcessEnv): Availability {
  if (process.platform !== "linux") {
    return {
      available: false,
      reason: `the shell sandbox needs Linux with bubblewrap, and this is ${process.platform}`,
    }
  }
  const bwrap = findBwrap(env)
  if (!bwrap) {
    return {
      available: false,
      reason: "bubblewrap (`bwrap`) is not installed; install it (Debian/Ubuntu: `apt install bubblewrap`)",
    }
  }
  const result = spawnSync(bwrap, [...baseArgs(false), "--", "/bin/sh", "-c", "true"], {
    stdio: ["ignore", "ignore", "pipe"],
    timeout: 10_000,
    encoding: "utf8",
  })
  if (result.status !== 0) {
    const detail = (result.stderr || result.error?.message || `exit ${result.status}`).trim()
    return {
      available: false,
      reason:
        `bubblewrap cannot create a sandbox here (${detail}); unprivileged user namespaces may be disabled ` +
        "(sysctl kernel.unprivileged_userns_clone=1, or the AppArmor restriction on Ubuntu 24.04+)",
    }
  }
  return { available: true, bwrap }
}

function findBwrap(env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir) continue
    const candidate = join(dir, "bwrap")
    try {
      accessSync(candidate, constants.X_OK)
      return candidate
    } catch {}
  }
  return undefined
}

/** Namespaces and the read-only root every sandbox starts from. */
function baseArgs(network: boolean): string[] {
  return [
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    ...(network ? [] : ["--unshare-net"]),
    "--die-with-parent",
  ]
}

/**
 * The bwrap arguments for a policy, before `--` and the command: the whole file system read-only, then
 * the writable directories bound read-write over it, then the protected paths bound read-only again
 * over those (later mounts win). No network namespace is shared unless the policy allows it, so even
 * loopback services of the host are out of reach. Paths that do not exist are skipped (bwrap refuses
 * to bind them).
 */
export function bwrapArgs(policy: SandboxPolicy): string[] {
  const args = baseArgs(policy.network ?? false)
  const writable = unique(
    [policy.tmp, policy.project, ...(policy.writable ?? [])].map((path) => resolve(path)),
  )
  for (const path of writable) if (existsSync(path)) args.push("--bind", path, path)
  for (const path of unique((policy.protect ?? []).map((path) => resolve(path)))) {
    if (existsSync(path) && writable.some((root) => within(root, path))) args.push("--ro-bind", path, path)
  }
  args.push("--chdir", policy.cwd)
  return args
}

/** The argv that runs `argv` inside the sandbox. */
export function sandboxArgv(bwrap: string, policy: SandboxPolicy, argv: readonly string[]): string[] {
  return [bwrap, ...bwrapArgs(policy), "--", ...argv]
}

/**
 * The paths of a project that must stay read-only even though the project is writable: git hooks and
 * config run code outside the sandbox the next time the user runs git (`core.hooksPath`,
 * `core.fsmonitor`), so a sandboxed command must not be able to plant them. Follows a `.git` file
 * (worktrees, submodules) to the real git dir and its common dir. A missing hooks dir is created (git
 * creates it anyway), so that it can be protected rather than left for the command to create.
 */
export function gitProtectedPaths(project: string): string[] {
  const dirs: string[] = []
  const dotGit = join(project, ".git")
  try {
    const stat = statSync(dotGit)
    if (stat.isDirectory()) dirs.push(dotGit)
    else if (stat.isFile()) {
      const match = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, "utf8"))
      if (match) {
        const gitDir = resolve(project, match[1]!.trim())
        dirs.push(gitDir)
        try {
          const common = readFileSync(join(gitDir, "commondir"), "utf8").trim()
          dirs.push(isAbsolute(common) ? common : resolve(gitDir, common))
        } catch {}
      }
    }
  } catch {
    return []
  }
  const out: string[] = []
  for (const dir of unique(dirs)) {
    const hooks = join(dir, "hooks")
    try {
      if (!existsSync(hooks) && existsSync(dir)) mkdirSync(hooks)
    } catch {}
    out.push(hooks, join(dir, "config"))
  }
  return out
}

function within(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep)
}

function unique(paths: string[]): string[] {
  return [...new Set(paths)]
}

/** One line saying what a sandboxed command may write and reach, for the model. */
export function describePolicy(policy: SandboxPolicy): string {
  const writable = unique([policy.project, policy.tmp, ...(policy.writable ?? [])])
  return `writable: ${writable.join(", ")}; network: ${policy.network ? "allowed" : "none"}`
}
