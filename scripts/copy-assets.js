// Copies the non-TypeScript files the sources read at run time into dist/: tool descriptions (.txt),
// wasm, and the web page of `toolbelt serve` (every file of src/surfaces/web: html, css, js).
import { cpSync, readdirSync, statSync } from "node:fs"
import { join, relative } from "node:path"

const src = new URL("../src/", import.meta.url).pathname
const dist = new URL("../dist/", import.meta.url).pathname
const page = join(src, "surfaces", "web")

function walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) walk(path)
    else if (name.endsWith(".txt") || name.endsWith(".wasm") || dir === page) {
      cpSync(path, join(dist, relative(src, path)))
    }
  }
}
walk(src)
