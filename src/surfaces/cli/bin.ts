// The executable entry (bin/toolbelt.js imports it). Exits once stdout has drained, so a tool that
// leaves a timer behind cannot keep a finished command alive, and piped output is never cut short.
import { main } from "./main.ts"

// Which of stdout and stderr were made: each stream is made on first use (loading the stream modules, a
// few ms), and a command's output may go straight to the descriptor (direct-stdout.ts), so the exit below
// waits only for streams that exist.
const made = { stdout: false, stderr: false }
for (const name of ["stdout", "stderr"] as const) {
  const descriptor = Object.getOwnPropertyDescriptor(process, name)
  const make = descriptor?.get
  if (!make || !descriptor.configurable) {
    made[name] = true
    continue
  }
  Object.defineProperty(process, name, {
    configurable: true,
    enumerable: descriptor.enumerable,
    get() {
      made[name] = true
      return make.call(process)
    },
  })
}

/** Calls `then` once `name`'s stream (if it was made) has written what it holds. */
function drained(name: "stdout" | "stderr", then: () => void): void {
  if (made[name]) process[name].write("", then)
  else then()
}

// Without a top-level await: the build bundles this entry as CommonJS (scripts/bundle-cli.js).
void main(process.argv.slice(2)).then((code) =>
  drained("stdout", () => drained("stderr", () => process.exit(code))),
)
