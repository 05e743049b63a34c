/**
 * The commands whose arguments carry the risk: for them an "always" approval saves the command exactly as
 * the person saw it, never the arity prefix plus ` *` (`always.ts` reads this table).
 *
 * Why exactly, and not `rm -rf build/*`: a bash pattern's `*` matches any run of characters, spaces and
 * `/` included (`wildcard.ts`), so any pattern that ends in `*` also matches the same command with more
 * or other targets: `rm -rf build/*` matches `rm -rf build/ /` and `rm -rf build/../..`, and `git push *`
 * matches `git push --force origin main`. A pattern can only say "this and nothing else" by holding no
 * wildcard at all, so the saved pattern is the command's text (its prefix, flags and operands as given).
 * The same command again runs unasked; a different target, flag or count of operands asks.
 *
 * When even the exact text cannot stand for what runs, nothing is saved ("always" then allows the one
 * call): the text holds `*` or `?` (a pattern would read them as wildcards: `rm *.o` would match
 * `rm -rf / .o`), `$` or a backtick (an expansion whose value may differ next time), or its targets are
 * handed to it at run time (`xargs rm`, `find … -exec rm {} ;`).
 *
 * Keys are what the arity lookup names a command by (`arity.ts`, `commandKey`): the tool's name and its
 * subcommand words, flags left out (`git -C x push --force` is `git push`). Each entry says why its
 * arguments are the risk. A command not listed keeps its arity prefix plus ` *` (`ls *`, `npm test *`,
 * `git status *`): its arguments choose what to look at, not what to destroy.
 */
export const RISKY_ARGUMENTS: Readonly<Record<string, string>> = {
  // Deleting
  rm: "deletes the files and trees it names",
  rmdir: "deletes the directories it names",
  unlink: "deletes the file it names",
  shred: "overwrites the files it names beyond recovery",
  find: "`-delete` deletes, and `-exec`/`-execdir`/`-ok` run commands on, whatever it finds from where it starts",
  // Moving and overwriting
  mv: "moves and renames, replacing what is at the target",
  cp: "writes over the target it names",
  install: "writes over the target, with the mode and owner it is given",
  ln: "with `-f` replaces the target with a link",
  rsync: "writes over the target, and `--delete` deletes what the source lacks",
  dd: "writes raw bytes to `of=`, a file or a whole disk",
  truncate: "cuts the files it names to a size, losing their contents",
  tee: "writes over the files it names",
  sed: "`-i` rewrites its files in place, and its script can write files (`w`) and run commands (`e`)",
  perl: "`-i` rewrites the files it names in place with the code it is given",
  // Modes, owners, attributes
  chmod: "changes the modes of the files it names",
  chown: "changes the owner of the files it names",
  chgrp: "changes the group of the files it names",
  chattr: "changes the attributes of the files it names (`+i` makes them immutable)",
  setfacl: "changes who may read and write the files it names",
  // Processes
  kill: "signals the processes it names",
  killall: "signals every process with the names it is given",
  pkill: "signals every process its pattern matches",
  // Disks
  mkfs: "formats the device it names",
  wipefs: "erases the signatures of the device it names",
  fdisk: "repartitions the disk it names",
  sfdisk: "repartitions the disk it names",
  parted: "repartitions the disk it names",
  // Version control: history and work that cannot be recovered
  "git push": "`--force`, `--delete`, `--mirror` and `+ref` rewrite or delete what is on the remote",
  "git reset": "`--hard` discards uncommitted work",
  "git clean": "`-f` deletes untracked files, `-x` ignored ones too",
  "git checkout": "`-f`, `.` and `-- <paths>` discard uncommitted changes",
  "git restore": "discards uncommitted changes to the paths it names",
  "git rm": "deletes the files it names from the work tree",
  "git branch": "`-D` deletes branches whatever they hold, `-f` moves them",
  "git tag": "`-d` deletes tags, `-f` moves them",
  "git stash drop": "deletes stashed work",
  "git stash clear": "deletes all stashed work",
  "git reflog expire": "deletes the history that lets lost commits be recovered",
  "git reflog delete": "deletes the history that lets lost commits be recovered",
  "git update-ref": "moves or deletes any ref",
  "git filter-branch": "rewrites the history of the refs it names",
  "git gc": "`--prune=now` deletes unreachable commits at once",
  // Containers, clusters, infrastructure
  "docker rm": "deletes the containers it names, `-v` their volumes too",
  "docker rmi": "deletes the images it names",
  "docker volume rm": "deletes the volumes it names, and their data",
  "docker system prune": "`-a --volumes` deletes every unused image and volume",
  "kubectl delete": "deletes the resources it names, a whole namespace with `ns`",
  "helm uninstall": "deletes the releases it names",
  "terraform destroy": "destroys what `-target` names, everything without it",
  "tofu destroy": "destroys what `-target` names, everything without it",
}
