/**
 * The table of file-like commands: for each command that creates, deletes, changes, reads or copies files,
 * which of its tokens are paths, so the scan can tell when a command touches files outside the project.
 * A command not listed here has no path operands (its arguments are not checked). Besides those commands,
 * the table holds the path flags of common tools (`git -C`, `make -C`, `curl -o`, `tar -C`, `npm --prefix`).
 * `operands.ts` reads it.
 */

/** `dir`: the path is a directory; `file`: a file (its parent directory counts); `auto`: whichever it is. */
export type PathKind = "file" | "dir" | "auto"

/** How to read one command's arguments: which are paths, which flags take a value. */
export interface FileSpec {
  /** Kind of the operands (the arguments that are not flags). */
  readonly kind?: PathKind
  /** Flags whose value (next token, `=value`, or rest of a short cluster) is not a path. */
  readonly value?: readonly string[]
  /** Flags whose value is a path. */
  readonly paths?: Readonly<Record<string, PathKind>>
  /** Leading operands that are not paths (grep's pattern, sed's script, chown's owner). */
  readonly skip?: number
  /** Flags that give the pattern or script, so no operand is skipped (`grep -e`, `sed -f`). */
  readonly pattern?: readonly string[]
  /** Flags without a value that mean there is no pattern operand (`rg --files`). */
  readonly patternless?: readonly string[]
  /** Operands are not paths: only the path flags count (curl, git, make). */
  readonly noOperands?: boolean
  /** Options come before the first operand only (`git -C x log -C`: the second is log's). */
  readonly optionsFirst?: boolean
  /** At most this many operands are paths (`unzip archive members…`). */
  readonly maxOperands?: number
  /** Operands like `if=PATH` (dd). */
  readonly assign?: readonly string[]
  /** `NAME=value` operands are assignments, not paths (awk). */
  readonly assignments?: boolean
  /** `host:path` operands are remote (rsync, scp). */
  readonly remote?: boolean
  /** The first operand may be a mode (chmod). */
  readonly mode?: boolean
  /** Flags whose value names a file when it starts with `@` (`curl -d @file`). */
  readonly at?: readonly string[]
  /** The first argument may be a dashless cluster of short options (`tar xzf a.tgz`). */
  readonly bundled?: boolean
  /** Short flags with an optional attached value that ends the cluster (`sed -i.bak`). */
  readonly optional?: readonly string[]
}

const plain: FileSpec = { kind: "auto" }
const checksum: FileSpec = { kind: "auto", value: ["-a", "--algorithm"] }

/** File-like commands by the name `toolName` gives them (`/bin/rm` is `rm`). */
export const FILE_COMMANDS: Readonly<Record<string, FileSpec>> = {
  rm: plain,
  rmdir: { kind: "dir" },
  mkdir: { kind: "dir", value: ["-m", "--mode", "--context"] },
  touch: { kind: "auto", value: ["-d", "-t", "--date"], paths: { "-r": "file", "--reference": "file" } },
  cp: copy(),
  mv: copy(),
  ln: copy(),
  install: copy(["-m", "--mode", "-o", "--owner", "-g", "--group"]),
  chmod: { kind: "auto", mode: true, paths: { "--reference": "file" } },
  chown: { kind: "auto", skip: 1, paths: { "--reference": "file" } },
  chgrp: { kind: "auto", skip: 1, paths: { "--reference": "file" } },
  cat: plain,
  tac: plain,
  nl: { kind: "auto", value: ["-b", "-d", "-f", "-h", "-i", "-l", "-n", "-s", "-v", "-w"] },
  less: plain,
  more: plain,
  head: { kind: "auto", value: ["-n", "-c", "--lines", "--bytes"] },
  tail: { kind: "auto", value: ["-n", "-c", "--lines", "--bytes", "-s", "--sleep-interval", "--pid"] },
  tee: plain,
  truncate: { kind: "auto", value: ["-s", "--size"], paths: { "-r": "file", "--reference": "file" } },
  shred: { kind: "auto", value: ["-n", "--iterations", "-s", "--size", "--random-source"] },
  unlink: plain,
  wc: { kind: "auto", paths: { "--files0-from": "file" } },
  file: { kind: "auto", value: ["-m", "--magic-file", "-F", "--separator", "-e", "--exclude"] },
  stat: { kind: "auto", value: ["-c", "--format", "--printf"] },
  strings: { kind: "auto", value: ["-n", "--bytes", "-t", "--radix", "-e", "--encoding"] },
  od: { kind: "auto", value: ["-A", "-j", "-N", "-t", "-w"] },
  xxd: { kind: "auto", value: ["-c", "-g", "-l", "-o", "-s"] },
  hexdump: { kind: "auto", value: ["-e", "-f", "-n", "-s"] },
  base64: { kind: "auto", value: ["-w", "--wrap"] },
  md5sum: plain,
  sha1sum: plain,
  sha256sum: plain,
  sha512sum: plain,
  shasum: checksum,
  cksum: checksum,
  readlink: plain,
  realpath: { kind: "auto", value: ["--relative-to", "--relative-base"] },
  source: { kind: "file", maxOperands: 1 },
  ".": { kind: "file", maxOperands: 1 },
  ls: {
    kind: "auto",
    value: ["-I", "--ignore", "-w", "--width", "-T", "--tabsize", "--hide", "--format", "--sort", "--time"],
  },
  tree: {
    kind: "dir",
    value: ["-L", "-P", "-I", "--filelimit", "--timefmt", "-H", "--charset"],
    paths: { "-o": "file" },
  },
  du: {
    kind: "auto",
    value: ["-d", "--max-depth", "-B", "--block-size", "-t", "--threshold", "--exclude", "--time-style"],
    paths: { "-X": "file", "--exclude-from": "file" },
  },
  diff: {
    kind: "auto",
    value: ["-U", "-C", "--label", "-x", "--exclude", "-I", "--ignore-matching-lines", "-W", "--width"],
    paths: { "-X": "file", "--exclude-from": "file" },
  },
  cmp: { kind: "auto", value: ["-i", "--ignore-initial", "-n", "--bytes"] },
  sort: {
    kind: "auto",
    value: ["-k", "--key", "-t", "--field-separator", "-S", "--buffer-size", "--parallel", "--batch-size"],
    paths: {
      "-o": "file",
      "--output": "file",
      "-T": "dir",
      "--temporary-directory": "dir",
      "--files0-from": "file",
    },
  },
  uniq: { kind: "auto", value: ["-f", "-s", "-w", "--skip-fields", "--skip-chars", "--check-chars"] },
  cut: {
    kind: "auto",
    value: [
      "-d",
      "-f",
      "-b",
      "-c",
      "--delimiter",
      "--fields",
      "--bytes",
      "--characters",
      "--output-delimiter",
    ],
  },
  sed: {
    kind: "auto",
    skip: 1,
    value: ["-l", "--line-length"],
    optional: ["-i"],
    pattern: ["-e", "--expression", "-f", "--file"],
    paths: { "-f": "file", "--file": "file" },
  },
  grep: grep(),
  egrep: grep(),
  fgrep: grep(),
  rg: {
    kind: "auto",
    skip: 1,
    value: [
      ...["-g", "--glob", "--iglob", "-t", "--type", "-T", "--type-not", "-A", "-B", "-C", "-m", "-M"],
      ...[
        "--max-count",
        "--max-columns",
        "-j",
        "--threads",
        "--max-depth",
        "-d",
        "-E",
        "--encoding",
        "--sort",
      ],
      ...["--sortr", "-r", "--replace", "--pre", "--pre-glob", "--type-add", "--color", "--colors"],
      ...["--context-separator", "--field-match-separator", "--path-separator", "--max-filesize"],
    ],
    pattern: ["-e", "--regexp", "-f", "--file"],
    patternless: ["--files", "--type-list"],
    paths: { "-f": "file", "--file": "file", "--ignore-file": "file" },
  },
  ag: { kind: "auto", skip: 1, value: ["-G", "-A", "-B", "-C", "-m", "--ignore"] },
  awk: awk(),
  gawk: awk(),
  mawk: awk(),
  tar: {
    kind: "auto",
    bundled: true,
    value: [
      "-b",
      "--blocking-factor",
      "--exclude",
      "-H",
      "--format",
      "--owner",
      "--group",
      "--mode",
      "--mtime",
    ],
    paths: {
      "-C": "dir",
      "--directory": "dir",
      "-f": "file",
      "--file": "file",
      "-T": "file",
      "--files-from": "file",
      "-X": "file",
      "--exclude-from": "file",
      "-g": "file",
      "--listed-incremental": "file",
    },
  },
  zip: { kind: "auto", value: ["-x", "-i", "-n", "-P", "--password"] },
  unzip: { kind: "file", maxOperands: 1, value: ["-x", "-P"], paths: { "-d": "dir" } },
  gzip: { kind: "auto", value: ["-S", "--suffix"] },
  gunzip: { kind: "auto", value: ["-S", "--suffix"] },
  bzip2: plain,
  xz: plain,
  unxz: plain,
  zstd: { kind: "auto", paths: { "-o": "file" } },
  dd: { noOperands: true, assign: ["if", "of"] },
  rsync: {
    kind: "auto",
    remote: true,
    value: [
      ...["-e", "--rsh", "--exclude", "--include", "--filter", "-f", "--rsync-path", "--chmod", "--chown"],
      ...["-B", "--port", "--timeout", "--bwlimit", "--partial-dir"],
    ],
    paths: {
      "--exclude-from": "file",
      "--include-from": "file",
      "--files-from": "file",
      "--log-file": "file",
      "--password-file": "file",
    },
  },
  scp: {
    kind: "auto",
    remote: true,
    value: ["-P", "-o", "-c", "-l", "-S", "-J"],
    paths: { "-F": "file", "-i": "file" },
  },
  curl: {
    noOperands: true,
    value: [
      ...["-H", "--header", "-X", "--request", "-u", "--user", "-A", "--user-agent", "-e", "--referer", "-b"],
      ...["--cookie", "-F", "--form", "-m", "--max-time", "--connect-timeout", "-x", "--proxy", "-w"],
      ...["--write-out", "--retry", "--data-raw", "-r", "--range", "--resolve", "--url"],
    ],
    paths: {
      "-o": "file",
      "--output": "file",
      "-T": "file",
      "--upload-file": "file",
      "-K": "file",
      "--config": "file",
      "-c": "file",
      "--cookie-jar": "file",
      "-D": "file",
      "--dump-header": "file",
      "--output-dir": "dir",
      "--trace": "file",
      "--trace-ascii": "file",
      "--stderr": "file",
      "--cacert": "file",
      "--cert": "file",
      "--key": "file",
    },
    at: ["-d", "--data", "--data-binary", "--data-urlencode", "--json"],
  },
  wget: {
    noOperands: true,
    value: [
      "-t",
      "--tries",
      "-T",
      "--timeout",
      "-U",
      "--user-agent",
      "--header",
      "-e",
      "--execute",
      "-l",
      "--level",
    ],
    paths: {
      "-O": "file",
      "--output-document": "file",
      "-o": "file",
      "--output-file": "file",
      "-a": "file",
      "--append-output": "file",
      "-P": "dir",
      "--directory-prefix": "dir",
      "-i": "file",
      "--input-file": "file",
      "--load-cookies": "file",
      "--save-cookies": "file",
    },
  },
  git: {
    noOperands: true,
    optionsFirst: true,
    value: ["-c", "--namespace", "--config-env", "--super-prefix", "--attr-source"],
    paths: { "-C": "dir", "--git-dir": "dir", "--work-tree": "dir" },
  },
  make: {
    noOperands: true,
    value: [
      "-j",
      "--jobs",
      "-l",
      "--load-average",
      "-o",
      "--old-file",
      "-W",
      "--what-if",
      "-I",
      "--include-dir",
    ],
    paths: { "-C": "dir", "--directory": "dir", "-f": "file", "--file": "file", "--makefile": "file" },
  },
  npm: { noOperands: true, value: ["-w", "--workspace"], paths: { "--prefix": "dir", "-C": "dir" } },
  pnpm: { noOperands: true, value: ["--filter", "-F"], paths: { "-C": "dir", "--dir": "dir" } },
  yarn: { noOperands: true, paths: { "--cwd": "dir" } },
  bun: { noOperands: true, paths: { "--cwd": "dir" } },
  cargo: { noOperands: true, paths: { "-C": "dir", "--manifest-path": "file" } },
  go: { noOperands: true, optionsFirst: true, paths: { "-C": "dir" } },
  terraform: { noOperands: true, optionsFirst: true, paths: { "-chdir": "dir" } },
  tofu: { noOperands: true, optionsFirst: true, paths: { "-chdir": "dir" } },
}

function copy(value: readonly string[] = []): FileSpec {
  return {
    kind: "auto",
    value: ["-S", "--suffix", ...value],
    paths: { "-t": "dir", "--target-directory": "dir" },
  }
}

function grep(): FileSpec {
  return {
    kind: "auto",
    skip: 1,
    value: [
      ...[
        "-A",
        "-B",
        "-C",
        "-m",
        "-d",
        "-D",
        "--include",
        "--exclude",
        "--exclude-dir",
        "--label",
        "--color",
      ],
      ...["--max-count", "--context", "--after-context", "--before-context", "--devices", "--directories"],
      ...["--binary-files", "--group-separator"],
    ],
    pattern: ["-e", "--regexp", "-f", "--file"],
    paths: { "-f": "file", "--file": "file", "--exclude-from": "file" },
  }
}

function awk(): FileSpec {
  return {
    kind: "auto",
    skip: 1,
    assignments: true,
    value: ["-F", "-v", "--assign", "--field-separator"],
    pattern: ["-f", "--file"],
    paths: { "-f": "file", "--file": "file" },
  }
}
