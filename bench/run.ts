// Runs every benchmark in this folder, one after another, in one process run: node bench/run.ts [name...]
import { readdir } from "node:fs/promises"
import { pathToFileURL } from "node:url"

const only = process.argv.slice(2)
const files = (await readdir(import.meta.dirname))
  .filter((name) => name.endsWith(".bench.ts"))
  .filter((name) => only.length === 0 || only.some((filter) => name.includes(filter)))
  .sort()

for (const file of files) {
  const module = (await import(pathToFileURL(`${import.meta.dirname}/${file}`).href)) as {
    run?: () => Promise<object>
    report?: (results: any) => void
  }
  if (!module.run) continue
  console.log(`\n== ${file}`)
  const results = await module.run()
  if (module.report) module.report(results)
  else
    for (const [key, value] of Object.entries(results))
      console.log(`  ${key.padEnd(28)} ${format(value as number)}`)
}

function format(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(2)
}
