import { type ChildProcess, spawnSync } from "node:child_process"
import { accessSync, constants } from "node:fs"
import { constants as os } from "node:os"
import { delimiter, join } from "node:path"
import type { Readable } from "node:stream"

/**
 * The child subreaper: a tiny perl process between toolbelt and the command's shell that nothing the
 * command does can leave.
 *
 * A process that calls `setsid` and `env -i` (or double-forks, or closes every fd) loses the session,
 * the process group and the environment marker by which the tree scan finds it, and is re-parented to
 * PID 1 when its parent exits. Linux lets a process declare itself a *child subreaper*
 * (prctl(PR_SET_CHILD_SUBREAPER)): every orphan below it is re-parented to it instead, so it can always
 * see and kill all of them. Node cannot call prctl without a native addon, so a few lines of perl do
 * (perl-base is Essential on Debian and Ubuntu, and present on nearly every other Linux):
 *
 * 1. Become a subreaper, and ask for SIGUSR1 when toolbelt dies (PR_SET_PDEATHSIG), even by SIGKILL.
 * 2. Fork and exec the shell; handlers for TERM/INT/HUP forward them to the shell (handlers, not
 *    "ignore", so the shell starts with the default dispositions).
 * 3. Reap every child. When the shell ends, write its status to fd 3 (close-on-exec, so no command can
 *    forge it); toolbelt treats that as the command's end and deals with what is left.
 * 4. Exit once no child is left, with the shell's status (re-raising the signal that killed it), so the
 *    exit looks the same to toolbelt as the shell's own.
 * 5. SIGUSR1 (toolbelt's SIGKILL phase, its exit, or its death): SIGKILL every descendant, again and
 *    again, until none is left (a process forking meanwhile only adds orphans that come back to us),
 *    then exit as in 4, or by SIGKILL if the shell never ended.
 */
const SCRIPT = String.raw`
my ($nr, $owner) = (shift @ARGV, shift @ARGV);
syscall($nr, 36, 1, 0, 0, 0) == 0 or die "toolbelt: cannot become a child subreaper: $!\n";
syscall($nr, 1, 10, 0, 0, 0);
open(my $report, ">&=", 3) or die "toolbelt: fd 3 is not open: $!\n";
fcntl($report, 2, 1);
my ($shell, $status);
sub children {
  my @out;
  for my $task (glob "/proc/$_[0]/task/*/children") {
    open(my $f, "<", $task) or next;
    push @out, split(" ", scalar(<$f>) // "");
  }
  return @out;
}
sub descendants { my @all; my @todo = ($$); while (@todo) { my @c = children(shift @todo); push @all, @c; push @todo, @c } @all }
sub finish {
  $SIG{$_} = "DEFAULT" for qw(TERM INT HUP USR1 PIPE);
  my $st = $status // 9;
  if ($st & 127) { kill $st & 127, $$; exit 128 + ($st & 127) }
  exit($st >> 8);
}
sub reaped {
  my ($pid) = @_;
  return unless defined $shell && $pid == $shell && !defined $status;
  $status = $?;
  syswrite($report, ($status & 127 ? "S" . ($status & 127) : "E" . ($status >> 8)) . "\n");
}
sub slaughter {
  for (;;) {
    kill "KILL", descendants();
    for (;;) { my $pid = waitpid(-1, 1); finish() if $pid == -1; last if $pid == 0; reaped($pid) }
    select(undef, undef, undef, 0.005);
  }
}
sub forward { kill $_[0], $shell if defined $shell && !defined $status }
$SIG{$_} = \&forward for qw(TERM INT HUP);
$SIG{USR1} = \&slaughter;
$SIG{PIPE} = sub {};
slaughter() if getppid() != $owner;
$shell = fork() // die "toolbelt: cannot fork: $!\n";
if ($shell == 0) { exec { $ARGV[0] } @ARGV; print STDERR "toolbelt: cannot run $ARGV[0]: $!\n"; exit 127 }
open(STDOUT, ">", "/dev/null"); open(STDERR, ">", "/dev/null");
for (;;) { my $pid = waitpid(-1, 0); finish() if $pid == -1; reaped($pid) }
`

/** prctl's syscall number, by Node's `process.arch` (the generic table for arm64 and riscv64). */
const PRCTL: Readonly<Record<string, number>> = {
  x64: 157,
  arm64: 167,
  riscv64: 167,
  loong64: 167,
  ia32: 172,
  arm: 172,
  s390x: 172,
  ppc64: 171,
}

/** What keeps a command's processes from outliving it, strongest first (see `containment`). */
export type Containment =
  | { readonly kind: "pid-namespace"; readonly detail: string }
  | { readonly kind: "subreaper"; readonly perl: string; readonly detail: string }
  | { readonly kind: "scan"; readonly detail: string }

let cached: Containment | undefined

/**
 * The mechanism an unsandboxed command gets here: the perl subreaper when Linux, perl and prctl all
 * work (checked once per process, by running the same prctl), else the process group with the /proc
 * scans (session, group, parent chain, environment marker). A sandboxed command is contained by
 * bwrap's PID namespace instead (`SANDBOX_CONTAINMENT`). `TOOLBELT_REAPER=0` turns the subreaper off.
 */
export function containment(options: { env?: NodeJS.ProcessEnv; refresh?: boolean } = {}): Containment {
  if (cached && !options.refresh) return cached
  cached = probe(options.env ?? process.env)
  return cached
}

/** With the sandbox on, bwrap's PID namespace holds the command: when its init exits, the kernel kills the rest. */
export const SANDBOX_CONTAINMENT: Containment = {
  kind: "pid-namespace",
  detail: "bubblewrap PID namespace (--unshare-pid --die-with-parent): everything in it dies with it",
}

function probe(env: NodeJS.ProcessEnv): Containment {
  const scan = (why: string): Containment => ({
    kind: "scan",
    detail: `process group and /proc scans (session, group, parent chain, run marker); no subreaper: ${why}`,
  })
  if (env.TOOLBELT_REAPER === "0") return scan("turned off by TOOLBELT_REAPER=0")
  if (process.platform !== "linux") return scan(`${process.platform} has no child subreaper`)
  const nr = PRCTL[process.arch]
  if (nr === undefined) return scan(`the prctl syscall number for ${process.arch} is not known`)
  const perl = findPerl(env)
  if (!perl) return scan("perl is not installed")
  const check = spawnSync(perl, ["-e", `syscall(${nr}, 36, 1, 0, 0, 0) == 0 or exit 3`], {
    stdio: "ignore",
    timeout: 5000,
  })
  if (check.status !== 0)
    return scan(`prctl(PR_SET_CHILD_SUBREAPER) failed (${check.error?.message ?? `exit ${check.status}`})`)
  return { kind: "subreaper", perl, detail: `child subreaper (${perl}, prctl PR_SET_CHILD_SUBREAPER)` }
}

function findPerl(env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of [...(env.PATH ?? "").split(delimiter), "/usr/bin", "/bin"]) {
    if (!dir) continue
    const candidate = join(dir, "perl")
    try {
      accessSync(candidate, constants.X_OK)
      return candidate
    } catch {}
  }
  return undefined
}

/** The argv that runs `argv` under the subreaper; its status line arrives on fd 3. */
export function reaperArgv(perl: string, argv: readonly string[]): string[] {
  return [perl, "-e", SCRIPT, String(PRCTL[process.arch]), String(process.pid), ...argv]
}

/** How the command the reaper ran ended. */
export interface ReapedExit {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

/**
 * Calls `onExit` with how the command ended once the reaper's status line on the child's fd 3 is whole.
 * Nothing happens where the child has no status pipe (it was started without the reaper) or the line
 * never comes (the reaper itself failed): callers also listen for the child's own exit. `unref`: the
 * pipe does not keep the event loop alive.
 */
export function onReaperStatus(
  child: ChildProcess,
  onExit: (exit: ReapedExit) => void,
  { unref = false }: { unref?: boolean } = {},
): void {
  const status = child.stdio[3] as (Readable & { unref?: () => void }) | null | undefined
  if (!status) return
  let line = ""
  status.on("data", (chunk: Buffer) => {
    line += chunk.toString("latin1")
    const parsed = line.includes("\n") ? parseStatus(line.slice(0, line.indexOf("\n"))) : undefined
    if (parsed) onExit(parsed)
  })
  status.on("error", () => {})
  if (unref) status.unref?.()
}

/** How the shell ended, from the reaper's status line (`E<code>` or `S<signal number>`). */
export function parseStatus(line: string): ReapedExit | undefined {
  const match = /^([ES])(\d+)$/.exec(line.trim())
  if (!match) return undefined
  const value = Number(match[2])
  if (match[1] === "E") return { code: value, signal: null }
  const name = Object.entries(os.signals).find(([, number]) => number === value)?.[0]
  return { code: null, signal: (name as NodeJS.Signals | undefined) ?? "SIGKILL" }
}
