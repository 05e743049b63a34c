// The executable entry (bin/toolbelt.js imports it). Exits once stdout has drained, so a tool that
// leaves a timer behind cannot keep a finished command alive, and piped output is never cut short.
import { main } from "./main.ts"

// Without a top-level await: the build bundles this entry as CommonJS (scripts/bundle-cli.js).
void main(process.argv.slice(2)).then((code) =>
  process.stdout.write("", () => process.stderr.write("", () => process.exit(code))),
)
