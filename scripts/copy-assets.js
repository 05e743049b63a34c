// Copies the non-TypeScript files the sources read at run time (tool descriptions) into dist/.
import { cpSync, readdirSync, statSync } from "node:fs"
import { join, relative } from "node:path"

const src = new URL("../src/", import.meta.url).pathname
const dist = new URL("../dist/", import.meta.url).pathname

function walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) walk(path)
    else if (name.endsWith(".txt") || name.endsWith(".wasm")) cpSync(path, join(dist, relative(src, path)))
  }
}
walk(src)
