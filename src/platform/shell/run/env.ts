/**
 * Variables that keep a command from waiting on a person: stdin is closed, so anything that prompts
 * would hang until the timeout. They override the inherited environment (a user's `PAGER=less` must not
 * reach the model's commands); the `shell.env` hook comes last and may override them in turn.
 */
export const NON_INTERACTIVE_ENV: Readonly<Record<string, string>> = {
  CI: "1",
  // git: no credential prompts, no pager, no editor (a commit without -m fails instead of hanging).
  GIT_TERMINAL_PROMPT: "0",
  GCM_INTERACTIVE: "never",
  GIT_PAGER: "cat",
  GIT_EDITOR: "true",
  PAGER: "cat",
  MANPAGER: "cat",
  SYSTEMD_PAGER: "cat",
  AWS_PAGER: "",
  // No terminal: programs should not draw progress bars, spinners or colours the model has to read past.
  TERM: "dumb",
  NO_COLOR: "1",
  // Package managers: assume yes, never ask.
  npm_config_yes: "true",
  DEBIAN_FRONTEND: "noninteractive",
  PIP_NO_INPUT: "1",
  COREPACK_ENABLE_DOWNLOAD_PROMPT: "0",
  // Output arrives as it is printed, so progress streams and prompts are seen.
  PYTHONUNBUFFERED: "1",
}

/** Names a command's processes carry so that ones that leave the process group can still be found. */
export const RUN_MARKER = "TOOLBELT_RUN_ID"

/**
 * The environment of one command: the inherited one, then the non-interactive defaults, then what the
 * `shell.env` hook returned, then the run marker (which nothing may override: tree kill depends on it).
 */
export function commandEnv(options: {
  base?: NodeJS.ProcessEnv
  hook?: Readonly<Record<string, string>>
  marker: string
}): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(options.base ?? process.env)) {
    if (value !== undefined) env[key] = value
  }
  Object.assign(env, NON_INTERACTIVE_ENV, options.hook ?? {})
  env[RUN_MARKER] = options.marker
  return env
}
