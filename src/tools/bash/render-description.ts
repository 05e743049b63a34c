import { platform, release, tmpdir } from "node:os"
import { chooseShell } from "../../platform/shell/run/index.ts"
import { loadText } from "../kit/load-text.ts"
import { DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS } from "../kit/shell-settings.ts"

/** What the model reads about `bash` (description.txt), with this machine's shell, system and limits. */
export function renderDescription(): string {
  return loadText(import.meta.url, "description.txt")
    .replaceAll("{{shell}}", safeShellName())
    .replaceAll("{{os}}", `${platform()} ${release()}`)
    .replaceAll("{{tmp}}", tmpdir())
    .replaceAll("{{timeout}}", String(DEFAULT_TIMEOUT_MS))
    .replaceAll("{{maxTimeout}}", String(MAX_TIMEOUT_MS))
    .replaceAll("{{maxLines}}", "2000")
    .replaceAll("{{maxKB}}", "50")
}

/** The shell a command would run in; "bash" when none suits (the call says why when it is made). */
function safeShellName(): string {
  try {
    return chooseShell().name
  } catch {
    return "bash"
  }
}
