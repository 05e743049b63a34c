/**
 * # The shell permission scan
 *
 * `scanCommand(command, {cwd, directory, worktree?, home?})` reads a shell command, without running it,
 * and says what the `bash` and `external_directory` permissions must cover before it may run. The bash
 * tool asks `external_directory` with `directoryPattern(dir)` for every `externalDirectories` entry first,
 * then one `bash` ask with `patterns` and `always`; any denied pattern denies the call.
 *
 * ## Commands and patterns
 * - The command is parsed with tree-sitter's bash grammar. Every command is found wherever it sits:
 *   pipelines, `&&`/`||`/`;`/`&` lists, subshells `( … )`, groups `{ …; }`, `if`/`for`/`while`/`case`
 *   bodies, function bodies, `$( … )`, backticks, `<( … )`, `${x:-$( … )}`, unquoted heredoc bodies.
 * - Strings that are shell code are parsed too, recursively (up to 8 levels): the script of
 *   `bash`/`sh`/`zsh`/`dash`/`ksh -c '…'` (also `-lc`, `-ec`…), `eval` arguments, `watch '…'`, `env -S '…'`,
 *   `su -c '…'`, `trap '…' EXIT` handlers, and the heredoc or here-string fed to a bare `bash`.
 * - Wrapped commands are commands too (one table, `wrappers.ts`, for every simple command wherever it
 *   is): `sudo`, `doas`, `su -c`, `runuser`, `pkexec`, `env`, `nohup`, `time`, `timeout N`, `nice`,
 *   `ionice`, `chrt`, `taskset`, `numactl`, `prlimit`, `stdbuf`, `setsid`, `chroot`, `unshare`, `nsenter`,
 *   `flock`, `coproc`, `command`, `builtin`, `exec`, `xargs`, `parallel`, `strace`, `ltrace`, `valgrind`,
 *   `caffeinate`, `unbuffer`, `busybox`/`toybox`, `fakeroot`, `faketime`, `firejail`, `systemd-run`,
 *   `xvfb-run`, `script -c`, `npx -c`, `find -exec/-execdir/-ok … ;`, `fd -x`, `uv run`, `poetry run`,
 *   `pipenv run`, `bundle exec`, `pnpm exec`, `npm exec`, `mise exec`, `conda run`, `direnv exec`…
 *   `sudo rm -rf x` gives two patterns, `sudo rm -rf x` and `rm -rf x`, so a rule about `rm` applies
 *   however `rm` is reached.
 * - The command word is read one way everywhere (`command-word.ts`): quotes, escapes and known expansions
 *   removed, a path by its last component; prefix assignments are dropped from the plain spelling
 *   (`FOO=1 rm x` also gives `rm x`); an expansion is split by `IFS` as the shell does (`c="rm x"; $c` gives
 *   `rm x`), each value a variable may hold is checked, and aliases (`alias r=rm`, `hash -p`) are followed.
 *   A variable is known only when every path to the command gives it (`variables.ts`).
 * - A pattern is the command's source text including its redirections (`echo hi > out.txt`), and the
 *   redirections of the compound command around it (`{ a; b; } > log` gives `a > log` and `b > log`).
 *   Whitespace is normalised only between tokens: runs of blanks and line continuations become one
 *   space; quoted text, heredoc bodies and the tokens themselves are exactly as written. A heredoc's body
 *   is part of its command's pattern.
 * - A command whose name is a path or quoted (`/bin/rm`, `\rm`, `"git" push`) also gives its plain
 *   spelling as a pattern (`rm -rf x`, always `rm -rf x`), so a rule about `rm` applies however it is
 *   written.
 * - `cd`, `chdir`, `pushd` and `popd` give no pattern (they are still checked for external directories).
 * - A redirection with no command (`> file`) is a pattern of its own. A standalone assignment to a
 *   variable that changes what later commands run (`PATH=…`, `LD_PRELOAD=…`, `IFS=…`) is a pattern, and
 *   `export`/`declare`/`local`/`readonly`/`typeset`/`unset` commands are patterns.
 * - `[ … ]`/`[[ … ]]` tests and other assignments run nothing and give no pattern (commands inside them do).
 *
 * ## "Always" patterns
 * - Each pattern's "always" pattern is, unless its arguments carry the risk (below), its prefix from the
 *   arity table (`arity.ts`) plus ` *`:
 *   `git log *`, `npm run dev *`, `docker compose up *`, `ls *`. Flags before and between subcommands do not
 *   count but stay in the prefix, so the always pattern matches the command it came from:
 *   `git -C x log -5` gives `git -C x log *` (see `arity.ts` for the rule and why).
 * - Prefix assignments stay too: `FOO=1 npm test` gives `FOO=1 npm test *`.
 * - A wrapper's prefix is the wrapper with its options followed by the wrapped command's prefix:
 *   `sudo -u bob make test` gives `sudo -u bob make test *` (and `make test *` for the wrapped pattern).
 * - A command whose arguments carry the risk (`risky-arguments.ts`: `rm`, `mv`, `chmod`, `kill`, `dd`,
 *   `find`, `git push`, `git reset`, `git clean`…) saves exactly its text, never a prefix: a bash
 *   pattern's `*` crosses spaces, so `rm -rf build/*` would also match `rm -rf build/ /`. `rm -rf build/`
 *   gives `rm -rf build/`, `sudo rm x` gives `sudo rm x` (and `rm x` for the wrapped pattern).
 * - Nothing is saved for a command when no pattern can match only it: a risky command whose text holds
 *   `*`, `?`, `$` or a backtick, or whose targets a wrapper hands over at run time (`xargs rm`, the `rm {}`
 *   of `find -exec`), and a prefix a wildcard character would cut short (`python -c 'print(2*3)'`). An
 *   exact pattern holding `*` or `?` is not saved either (`./*.sh`).
 * - When no prefix is left, or the prefix is not a prefix of the pattern, "always" is the exact pattern.
 *
 * ## External directories
 * - The working directory (`cwd`), when outside the project, is an external directory itself.
 * - File-like commands (`operands.ts`: `rm cp mv ln mkdir rmdir touch chmod chown cat head tail less tee
 *   truncate dd sed grep rg awk ls find du diff sort tar zip unzip rsync scp curl -o wget -O git -C
 *   make -C …`) have their path operands resolved; so do `cd`/`pushd` targets and every redirection
 *   target (`>`, `>>`, `>|`, `&>`, `&>>`, `<`, `<>`, `>&file`), except `/dev/null`, `/dev/stdin`,
 *   `/dev/stdout`, `/dev/stderr`, `/dev/tty`, `/dev/zero`, `/dev/random`, `/dev/urandom` and `/dev/fd/N`.
 * - Paths are expanded as far as the scan can know: quotes removed, `~`, `~user`, `$HOME`, `$PWD`,
 *   `$OLDPWD`, `$(pwd)`, variables assigned earlier in the command with literal values, and `for` loop
 *   variables over literal words. Relative paths resolve against the directory the command runs in:
 *   `cd`/`pushd`/`popd` earlier in the same list move it (`cd /tmp && rm x` checks `/tmp/x`); subshells,
 *   pipeline stages, `$( … )` and `&` background jobs keep their moves to themselves.
 * - A path with a glob or an unknown expansion is checked by its literal prefix, as a directory:
 *   `rm /tmp/build-*` checks `/tmp`, `cat "$HOME/$f"` checks the home directory. A path that starts with
 *   an unknown expansion (`rm -rf "$DIR"`) cannot be placed: it is listed in `reasons`.
 * - Each path is located the way the kernel will see it (symlinks followed, `..` applied after them, a
 *   missing path through its nearest existing ancestor, a dangling symlink through its target). It is
 *   external when outside the project directory and outside the worktree (unless the worktree is `/`);
 *   then its real directory is listed: the path itself for a directory operand (`cd`, `mkdir`, `rmdir`,
 *   `find` start points, `-C` flags, or any existing directory), else its parent directory.
 *
 * ## When the scan is unsure
 * - `parsed: false` when the command (or a nested script) has a syntax error, nests too deeply, or the
 *   parser cannot load. The caller must then ask for the whole command, never allow it silently. The
 *   patterns are then the whole command text first, followed by the commands the scan could still make
 *   out (so that deny rules still apply); "always" is the exact text of each (none holding `*` or `?`),
 *   never a prefix.
 * - `reasons` lists what the scan could not see through, even when it parsed: a command name that is an
 *   expansion (`$CMD args`), shell code built from expansions (`eval "$x"`, `bash -c "$cmd"`), a shell
 *   reading commands from standard input (`curl … | sh`), paths it could not place, a working directory
 *   it lost track of (`cd "$(…)"`), arguments a file command gets from input (`… | xargs rm`). A careful
 *   caller asks rather than allowing silently when `reasons` is present.
 * - `unchecked` lists the patterns whose commands the rules cannot check at all (`unchecked.ts`): a command
 *   word computed at run time (`$(echo rm) x`, `"$@"`, `$CMD x`, a glob), shell code built at run time
 *   (`eval "$x"`, `sh -c "$x"`), commands from a file or input (`source f`, `curl … | sh`, `xargs sh -c`),
 *   and the whole command when it could not be parsed. The caller gives them the strictest outcome the
 *   rules could give (see permission/unchecked.ts).
 * - Line continuations outside quotes are removed before parsing, as bash does, so `r\⏎m -rf /` is seen as
 *   `rm -rf /`.
 *
 * ## Where the grammar and bash disagree (handled here)
 * - `a && b > f` and `a | b > f`: the grammar hangs the redirection on the whole list or pipeline; bash
 *   applies it to `b` only, so it goes to `b`'s pattern and is resolved where `b` runs.
 * - `echo > out a b`: the grammar makes `a b` redirection targets; they are `echo`'s arguments.
 * - `python3 - <<EOF`: the grammar drops the `-`; it is put back.
 * - `cat <<EOF | sh` and `cat <<EOF && b`: the grammar nests what follows inside the heredoc; it is walked
 *   as the pipeline or list it is.
 * - Any other source text the grammar leaves out of the tree makes the scan `parsed: false`.
 *
 * ## Where it is done
 * This module assembles the result. The walk that finds commands is `walk.ts`; the shell state it
 * carries is `frame.ts`; redirections are `redirections.ts`; `cd` and friends are `working-directory.ts`;
 * the external-directory check is `external-paths.ts`; "always" patterns and plain spellings are
 * `always.ts`; pattern text is `pattern-text.ts`; line continuations are `continuations.ts`; reasons are
 * `reasons.ts`; the command word is `command-word.ts`; aliases are `aliases.ts`; what variables are known
 * is `variables.ts`; what the rules cannot check is `unchecked.ts`.
 */
import { homedir } from "node:os"
import { resolve } from "node:path"
import { exactPattern } from "./always.ts"
import type { State } from "./frame.ts"
import { externalDirectory, realRoot } from "./locate.ts"
import { loadBashParser } from "./parser.ts"
import type { ScannedCommand } from "./scanned-command.ts"
import { Scanner } from "./walk.ts"

export type { ScannedCommand }

export interface ScanOptions {
  /** The directory the command runs in (relative paths resolve against `directory`). */
  readonly cwd: string
  /** The project directory. */
  readonly directory: string
  /** The worktree root; ignored when it is `/` (non-git projects). */
  readonly worktree?: string
  /** The home directory for `~` and `$HOME` (default: the process's). */
  readonly home?: string
}

export interface Scan {
  /** False when the command could not be parsed: the caller must ask for the whole command. */
  readonly parsed: boolean
  readonly commands: readonly ScannedCommand[]
  /** The `bash` patterns, unique, in order. */
  readonly patterns: readonly string[]
  /** The "always" patterns, unique, in order. */
  readonly always: readonly string[]
  /** Real directories outside the project (and worktree) that the command touches, unique, in order. */
  readonly externalDirectories: readonly string[]
  /** What the scan could not see through (present only when there is something to say). */
  readonly reasons?: readonly string[]
  /**
   * Patterns whose commands the rules cannot check, with why (present only when there are some): a
   * command word computed at run time, shell code built at run time, commands read from a file or input,
   * and the whole command when it could not be parsed. A rule about a program can never match them; the
   * caller treats them as the strictest outcome the rules could give.
   */
  readonly unchecked?: readonly UncheckedPattern[]
}

/** A pattern the rules cannot check, and why (a phrase: "its command word $CMD is expanded when …"). */
export interface UncheckedPattern {
  readonly pattern: string
  readonly reason: string
}

/** The `external_directory` pattern for a directory: `<dir>/*` (`/*` for the root). */
export function directoryPattern(directory: string): string {
  return directory.endsWith("/") ? `${directory}*` : `${directory}/*`
}

/** Scans a shell command for the permissions it needs (see the module comment for the rules). */
export async function scanCommand(command: string, options: ScanOptions): Promise<Scan> {
  const directory = resolve(options.directory)
  const cwd = resolve(directory, options.cwd)
  const home = options.home ?? homedir()
  const whole = command.trim()
  const roots = projectRoots(directory, options.worktree)
  let scanner: Scanner
  try {
    scanner = new Scanner(await loadBashParser(), home)
  } catch (error) {
    const reason = `the shell parser could not be loaded: ${error instanceof Error ? error.message : String(error)}`
    const externalDirectories: string[] = []
    const outside = externalDirectory(cwd, "dir", roots)
    if (outside !== undefined) externalDirectories.push(outside)
    return {
      parsed: false,
      commands: [],
      patterns: whole === "" ? [] : [whole],
      always: whole === "" || exactPattern(whole) === undefined ? [] : [whole],
      externalDirectories,
      reasons: [reason],
      ...(whole === "" ? {} : { unchecked: [{ pattern: whole, reason }] }),
    }
  }
  const state: State = {
    cwd,
    oldpwd: undefined,
    stack: [],
    vars: new Map(),
    aliases: new Map(),
    functions: new Map(),
  }
  scanner.paths.check(cwd, "dir")
  scanner.script(command, { source: command, state, redirects: [], depth: 0, via: undefined }, undefined)
  const externalDirectories = scanner.paths.externals(roots)
  const commands = scanner.commands
  const asking = commands.filter((entry) => entry.asks)
  let patterns: string[]
  let always: string[]
  if (scanner.findings.failed) {
    patterns = unique([whole, ...asking.flatMap(texts)].filter((text) => text !== ""))
    always = patterns.filter((pattern) => exactPattern(pattern) !== undefined)
  } else {
    patterns = unique(asking.flatMap(texts))
    always = unique(
      asking
        .flatMap((entry) => [entry.always, entry.plain?.always])
        .filter((pattern): pattern is string => pattern !== undefined),
    )
  }
  const reasons = unique(scanner.findings.reasons)
  const unchecked = uncheckedPatterns(asking, scanner.findings.failed ? whole : undefined, reasons)
  return {
    parsed: !scanner.findings.failed,
    commands,
    patterns,
    always,
    externalDirectories,
    ...(reasons.length > 0 ? { reasons } : {}),
    ...(unchecked.length > 0 ? { unchecked } : {}),
  }
}

/** The unchecked commands' patterns, and the whole command when it could not be parsed. */
function uncheckedPatterns(
  commands: readonly ScannedCommand[],
  unparsed: string | undefined,
  reasons: readonly string[],
): UncheckedPattern[] {
  const found: UncheckedPattern[] = []
  if (unparsed) {
    const why = reasons[0] ?? "a syntax error"
    found.push({
      pattern: unparsed,
      reason: `the command could not be parsed (${why}), so its commands are not known`,
    })
  }
  for (const command of commands) {
    if (command.unchecked !== undefined && !found.some((entry) => entry.pattern === command.text))
      found.push({ pattern: command.text, reason: command.unchecked })
  }
  return found
}

function projectRoots(directory: string, worktree: string | undefined): string[] {
  const roots = [realRoot(directory)]
  if (worktree !== undefined && worktree !== "" && resolve(directory, worktree) !== resolve("/")) {
    roots.push(realRoot(resolve(directory, worktree)))
  }
  return roots
}

/** A command's patterns: its text, and its plain spelling when that differs. */
function texts(command: ScannedCommand): string[] {
  return command.plain ? [command.text, command.plain.text] : [command.text]
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)]
}
