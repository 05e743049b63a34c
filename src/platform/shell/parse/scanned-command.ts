/** The shape of one command the scan found (see `scan.ts`). */

/** One command found in the command line. */
export interface ScannedCommand {
  /** The `bash` pattern: source text with redirections, whitespace between tokens normalised. */
  readonly text: string
  /** The command name as known (quotes removed), or its source text when it is an expansion. */
  readonly name: string
  /** The words (name first): known values, or source text for those the scan cannot know. */
  readonly argv: readonly string[]
  /**
   * The "always" pattern; undefined when the command asks nothing (`cd`), or when no pattern would save no
   * more than it (`always.ts`: `rm *.o`, `xargs rm`).
   */
  readonly always: string | undefined
  /** Whether it is a `bash` pattern (false for `cd`, `pushd`, `popd`, `chdir`). */
  readonly asks: boolean
  /** How it was reached when not written at the top level: `sudo`, `bash -c`, `eval`, `find -exec`… */
  readonly via?: string
  /** The directory it runs in, when known. */
  readonly cwd?: string
  /**
   * The same command with its name and subcommands spelled plainly, when written otherwise
   * (`/bin/rm -rf x`, `\rm x`, `"git" push`): `rm -rf x` with always `rm -rf x`. It is a pattern too, so a
   * rule about `rm` applies however `rm` is spelled.
   */
  readonly plain?: { readonly text: string; readonly always?: string }
  /**
   * Why the rules cannot check what this command runs, when they cannot: its command word is computed at
   * run time (`$(echo rm) x`, `"$@"`), it runs shell code built at run time (`eval "$x"`), or commands read
   * from a file or input (`source f`, `curl … | sh`). Its pattern is then `unchecked` in the scan.
   */
  readonly unchecked?: string
}
