// Writes dist/tool-schemas.json: the JSON Schema of every built-in tool's parameters (each
// `builtinSchema` of dist/tools/), by key. A listing from the build reads a tool's JSON Schema there instead of building
// its Zod schema and converting it (runtime/tool/schema-source.ts). Run by scripts/build.js after the
// compiled modules are in place; the manifest is computed from those very modules.
import { writeFileSync } from "node:fs"

const dist = new URL("../dist/", import.meta.url)
await import(new URL("tools/index.js", dist).href)
const { MANIFEST_URL, schemaManifest } = await import(new URL("runtime/tool/schema-source.js", dist).href)
const manifest = schemaManifest()
if (Object.keys(manifest).length === 0)
  throw new Error("No tool schema was found in dist/tools: is the build complete?")
writeFileSync(MANIFEST_URL, `${JSON.stringify(manifest)}\n`)
