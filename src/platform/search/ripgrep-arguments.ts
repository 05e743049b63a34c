// The command line toolbelt gives rg: the flags every run gets, and how the walk and the globs become rg
// flags (the globs only narrow what rg lists; the JavaScript filter still decides).
import { nameGlob } from "./glob.ts"

/** Flags every run gets: no config file, hidden files, never `.git`, no global gitignore, no noise. */
export const BASE = [
  "--no-config",
  "--no-ignore-global",
  "--no-messages",
  "--no-ignore-messages",
  "--glob",
  "!.git",
]

/** Hidden files (listed unless `hidden: false`) and symbolic links followed. */
export function walkFlags(options: { hidden?: boolean; follow?: boolean }): string[] {
  return [...((options.hidden ?? true) ? ["--hidden"] : []), ...(options.follow ? ["--follow"] : [])]
}

/** How rg matches: case (sensitive unless `ignoreCase`) and literal strings. */
export function matchFlags(options: { ignoreCase?: boolean; fixedStrings?: boolean }): string[] {
  return [
    ...(options.ignoreCase ? ["--ignore-case"] : ["--case-sensitive"]),
    ...(options.fixedStrings ? ["--fixed-strings"] : []),
  ]
}

/**
 * `typeFilter`, when hidden files are listed anyway. rg skips its hidden check for a file a type matches
 * (as for one a `!` ignore rule matches), so without `--hidden` a type would list `.env.c` for `*.c`; rg
 * then lists every file it would list plainly, and the JavaScript filter alone decides.
 */
export function narrowing(globs: readonly string[] | undefined, options: { hidden?: boolean }): string[] {
  return (options.hidden ?? true) ? typeFilter(globs) : []
}

/**
 * When every glob only looks at file names, a ripgrep file type built from them: ripgrep then skips the
 * other files itself (after its ignore rules, unlike `--glob`). Globs that look at more than the name, or
 * that rg's type syntax might read differently, give nothing (rg lists every file). What rg lists is only
 * narrowed: the JavaScript filter still decides.
 */
export function typeFilter(globs: readonly string[] | undefined): string[] {
  if (!globs || globs.length === 0) return []
  const names: string[] = []
  for (const glob of globs) {
    const name = nameGlob(glob)
    // `[` and `..` read differently here: the matcher also takes `[id]` literally and counts `{1..3}`.
    if (name === undefined || /[:\\()+@![]|\.\./.test(name)) return []
    const expanded = expandBraces(name)
    if (!expanded) return []
    names.push(...expanded)
  }
  return [...names.flatMap((name) => ["--type-add", `toolbeltinclude:${name}`]), "--type", "toolbeltinclude"]
}

/** `a{b,c}d` → `abd`, `acd` (no nesting); undefined when the braces are not that simple. */
function expandBraces(glob: string): string[] | undefined {
  const open = glob.indexOf("{")
  if (open < 0) return glob.includes("}") || glob.includes(",") ? undefined : [glob]
  const close = glob.indexOf("}", open)
  if (close < 0 || glob.slice(open + 1, close).includes("{")) return undefined
  const rest = expandBraces(glob.slice(close + 1))
  if (!rest) return undefined
  const head = glob.slice(0, open)
  return glob
    .slice(open + 1, close)
    .split(",")
    .flatMap((option) => rest.map((tail) => head + option + tail))
}
