// Builds dist/: the compiled library (with its types) and the bundled command line that bin/toolbelt.js
// starts. Run by `npm run build`, by `prepack`, and by `prepare` (so `npm install` in a clone builds).
//
// 1. Write dist/build-stamp.json with the time the build started: bin/toolbelt.js runs the build only
//    when no source file changed after that (a file edited during the build counts as changed).
// 2. tsc -p tsconfig.build.json: dist/ mirrors src/ as JavaScript with .d.ts files.
// 3. Copy the files the modules read at run time (tool descriptions, wasm) beside them, and write the
//    built-in tools' JSON Schemas (scripts/tool-schemas.js: dist/tool-schemas.json).
// 4. Bundle the command line (scripts/bundle-cli.js) into dist/cli.bundle.js and its chunks: one file
//    per command instead of ~350 modules, the difference between a 0.25 s and a 0.08 s start.
//
// With --prepare (npm install), a failed build is a warning, not a failed install: the command line then
// runs from the sources, slower but correct, and `npm test` reports what is wrong with them.
import { execFileSync } from "node:child_process"
import { mkdirSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const dist = join(root, "dist")
const prepare = process.argv.includes("--prepare")

/** Runs a build step with the Node running this script, so the pinned Node does it under npm. */
function step(args) {
  execFileSync(process.execPath, args, { cwd: root, stdio: "inherit" })
}

try {
  const started = Date.now()
  // A stamp from an earlier build must not vouch for a half-written dist/ if this one fails.
  rmSync(join(dist, "build-stamp.json"), { force: true })
  // Nor an earlier build's tool schemas for the modules this one compiles.
  rmSync(join(dist, "tool-schemas.json"), { force: true })
  step([join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json"])
  step([join(root, "scripts", "copy-assets.js")])
  step([join(root, "scripts", "tool-schemas.js")])
  step([join(root, "scripts", "bundle-cli.js")])
  mkdirSync(dist, { recursive: true })
  writeFileSync(join(dist, "build-stamp.json"), `${JSON.stringify({ started })}\n`)
} catch (error) {
  if (!prepare) throw error
  process.stderr.write(
    `warning: building dist/ failed (${error.message.split("\n")[0]}); the toolbelt command will run from the TypeScript sources, which starts about 3x slower. Run "npm run build" to see why.\n`,
  )
}
