/**
 * The table of wrappers: commands that run a command given in their arguments (sudo, env, xargs, timeout,
 * nice, chroot, `uv run`, ...), with the options that tell where the wrapped command starts, and the
 * lists of shells, multi-call binaries and GNU parallel options. `wrappers.ts` reads them; one place to
 * look for "does the scan see through X".
 */

/** How to find the wrapped command among one wrapper's arguments. */
export interface WrapperSpec {
  /** Flags whose value is the next token (or the rest of a short cluster). */
  readonly value?: readonly string[]
  /** Flags after which nothing is run (`command -v`, `sudo -l`). */
  readonly stop?: readonly string[]
  /** `NAME=value` tokens before the command are settings (`env`, `sudo`). */
  readonly assignments?: boolean
  /** Operands before the command (`timeout DURATION`, `direnv exec DIR`). */
  readonly positional?: number
  /** Flags whose value is the working directory of the wrapped command. */
  readonly chdir?: readonly string[]
  /** Flags whose value is a script for `sh -c` (`env -S`, which also takes the words after it). */
  readonly script?: readonly string[]
  /** Only a script flag runs anything, and its value alone is the script (`su -c '…' user`). */
  readonly scriptOnly?: boolean
  /** The wrapped command gets arguments from input. */
  readonly input?: boolean
  /** Flags whose value the wrapper replaces with input in the command (`xargs -I X`). */
  readonly placeholder?: readonly string[]
}

/**
 * Wrappers by the name `toolName` gives them; a two-word key (`uv run`) is a subcommand of a program that
 * is not itself a wrapper.
 */
export const WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  sudo: {
    value: [
      ...["-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-T", "-U", "--user", "--group", "--host"],
      ...["--prompt", "--close-from", "--chdir", "--role", "--type", "--command-timeout", "--other-user"],
    ],
    stop: [
      "-l",
      "-v",
      "-k",
      "-K",
      "-V",
      "-e",
      "--list",
      "--validate",
      "--edit",
      "--version",
      "--reset-timestamp",
    ],
    assignments: true,
    chdir: ["-D", "--chdir"],
  },
  doas: { value: ["-u", "-C"], stop: ["-L"] },
  su: {
    value: ["-s", "--shell", "-g", "--group", "-G", "--supp-group"],
    script: ["-c", "--command"],
    scriptOnly: true,
  },
  env: {
    value: ["-u", "--unset", "-C", "--chdir", "-S", "--split-string", "-a", "--argv0", "-P"],
    assignments: true,
    chdir: ["-C", "--chdir"],
    script: ["-S", "--split-string"],
  },
  nohup: {},
  time: { value: ["-f", "--format", "-o", "--output"] },
  timeout: { value: ["-s", "--signal", "-k", "--kill-after"], positional: 1 },
  nice: { value: ["-n", "--adjustment"] },
  ionice: {
    value: ["-c", "--class", "-n", "--classdata"],
    stop: ["-p", "--pid", "-P", "--pgid", "-u", "--uid"],
  },
  stdbuf: { value: ["-i", "-o", "-e", "--input", "--output", "--error"] },
  setsid: {},
  taskset: { positional: 1, stop: ["-p", "--pid"] },
  command: { stop: ["-v", "-V"] },
  builtin: {},
  exec: { value: ["-a"] },
  caffeinate: { value: ["-t", "-w"] },
  unbuffer: {},
  chronic: {},
  strace: { value: ["-o", "-e", "-p", "-s", "-u", "-E", "-P", "-a", "-b", "-I", "-O", "-S", "-X"] },
  xargs: {
    value: [
      ...["-a", "--arg-file", "-d", "--delimiter", "-E", "-I", "-L", "-n", "--max-args", "-P", "--max-procs"],
      ...["-s", "--max-chars", "--process-slot-var"],
    ],
    input: true,
    placeholder: ["-I"],
  },
  // Run a command in another root, scheduling class, lock, namespace, identity or environment.
  chroot: { value: ["--userspec", "--groups"], positional: 1 },
  chrt: {
    value: ["-T", "--sched-runtime", "-P", "--sched-period", "-D", "--sched-deadline"],
    positional: 1,
    stop: ["-p", "--pid", "-m", "--max"],
  },
  flock: {
    value: ["-w", "--timeout", "-E", "--conflict-exit-code"],
    positional: 1,
    script: ["-c", "--command"],
  },
  prlimit: { stop: ["-p", "--pid"] },
  numactl: { value: ["-C", "-N", "-m", "-i", "-p", "-P"], stop: ["-s", "--show", "-H", "--hardware"] },
  unshare: {
    value: ["-S", "--setuid", "-G", "--setgroups", "--map-user", "--map-group", "-R", "--root", "-w", "--wd"],
    chdir: ["-w", "--wd"],
  },
  nsenter: { value: ["-t", "--target", "-S", "--setuid", "-G", "--setgid", "-r", "--root", "-w", "--wd"] },
  runuser: {
    value: ["-u", "--user", "-g", "--group", "-G", "--supp-group", "-s", "--shell"],
    script: ["-c", "--command"],
  },
  pkexec: { value: ["--user"] },
  sg: { positional: 1, script: ["-c"] },
  "systemd-run": {
    value: [
      "-p",
      "--property",
      "-u",
      "--unit",
      "-E",
      "--setenv",
      "--uid",
      "--gid",
      "--nice",
      "-D",
      "--working-directory",
      "--slice",
      "--description",
      "-M",
      "--machine",
      "-H",
      "--host",
    ],
    chdir: ["-D", "--working-directory"],
  },
  firejail: {},
  faketime: { value: ["-m", "-p"], positional: 1 },
  fakeroot: { value: ["-l", "--lib", "--faked", "-s", "-i"] },
  eatmydata: {},
  nocache: {},
  torsocks: { value: ["-u", "-p", "-a", "-P"] },
  proxychains: { value: ["-f"] },
  proxychains4: { value: ["-f"] },
  "xvfb-run": {
    value: [
      "-n",
      "--server-num",
      "-s",
      "--server-args",
      "-e",
      "--error-file",
      "-f",
      "--auth-file",
      "-p",
      "--xauth-protocol",
    ],
  },
  "dbus-run-session": { value: ["--config-file", "--dbus-daemon"] },
  valgrind: {},
  ltrace: { value: ["-o", "-e", "-p", "-s", "-u", "-n", "-a", "-A", "-D", "-l"] },
  catchsegv: {},
  cpulimit: { value: ["-l", "--limit", "-p", "--pid", "-e", "--exe", "-P", "--path"] },
  script: {
    value: [
      "-t",
      "--timing",
      "-I",
      "--log-in",
      "-O",
      "--log-out",
      "-B",
      "--log-io",
      "-T",
      "--log-timing",
      "-m",
      "--logging-format",
      "-E",
      "--echo",
    ],
    script: ["-c", "--command"],
    scriptOnly: true,
  },
  coproc: {},
  "uv run": {
    value: [
      ...["--with", "--with-editable", "--with-requirements", "--python", "-p", "--package", "--project"],
      ...["--directory", "--env-file", "--extra", "--group", "--index", "--default-index"],
    ],
    chdir: ["--directory"],
  },
  "poetry run": { value: ["-C", "--directory", "-P", "--project"] },
  "pipenv run": {},
  "bundle exec": {},
  "pnpm exec": { value: ["-C", "--dir", "--filter", "-F"] },
  "npm exec": { value: ["-w", "--workspace", "-p", "--package"], script: ["-c", "--call"] },
  "yarn exec": {},
  npx: { value: ["-p", "--package", "-w", "--workspace"], script: ["-c", "--call"], scriptOnly: true },
  "mise exec": { value: ["-C", "--cd"], chdir: ["-C", "--cd"] },
  "mise x": { value: ["-C", "--cd"], chdir: ["-C", "--cd"] },
  "conda run": { value: ["-n", "--name", "-p", "--prefix", "--cwd"], chdir: ["--cwd"] },
  "direnv exec": { positional: 1 },
}

/** Shells: `-c` takes a script, and with no script operand they read commands from input. */
export const SHELLS: ReadonlySet<string> = new Set([
  "bash",
  "sh",
  "zsh",
  "dash",
  "ksh",
  "mksh",
  "ash",
  "fish",
])

/** Multi-call binaries: the next word is the program they run (`busybox rm x` is `rm x`). */
export const MULTICALL: ReadonlySet<string> = new Set(["busybox", "toybox"])

/** GNU parallel's options that take a value. */
export const PARALLEL_VALUES: readonly string[] = [
  ...["-j", "--jobs", "-P", "--max-procs", "-S", "--sshlogin", "-a", "--arg-file", "-d", "--delimiter"],
  ...["-I", "-n", "--max-args", "-N", "-L", "--max-lines", "--joblog", "--results", "--timeout", "--delay"],
  ...["--colsep", "-C", "--tmpdir", "--workdir", "--wd", "-E", "--memfree", "--load", "--retries"],
]
