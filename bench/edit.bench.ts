// The edit matcher chain on a generated 20,000-line, tab-indented TypeScript file: a 5-line edit near the
// end found exactly, the same edit with 4-space indentation (found by line-trimmed, newString
// re-indented with tabs), and a miss (the not-found message with the closest region), in ms per call
// (median). Run: node bench/edit.bench.ts
import { pathToFileURL } from "node:url"
import { replace } from "../src/tools/kit/match/replace.ts"

const LINES = 20_000
const ROUNDS = 30

/** A deterministic file of small classes with tab-indented methods, `lines` lines long. */
export function generateFile(lines = LINES): string[] {
  const out: string[] = []
  let n = 0
  while (out.length < lines) {
    out.push(`export class Service${n} {`)
    out.push(`\tprivate readonly cache = new Map<string, number>()`)
    out.push("")
    out.push(`\tasync load${n}(id: string, options: { force?: boolean } = {}): Promise<number> {`)
    out.push(`\t\tif (!options.force && this.cache.has(id)) {`)
    out.push(`\t\t\treturn this.cache.get(id)!`)
    out.push(`\t\t}`)
    out.push(`\t\tconst value = await fetchValue("service-${n}", id)`)
    out.push(`\t\tthis.cache.set(id, value * ${n % 97})`)
    out.push(`\t\treturn value`)
    out.push(`\t}`)
    out.push(`}`)
    out.push("")
    n++
  }
  return out.slice(0, lines)
}

function median(call: () => unknown): number {
  for (let i = 0; i < 3; i++) call()
  const samples: number[] = []
  for (let i = 0; i < ROUNDS; i++) {
    const start = process.hrtime.bigint()
    call()
    samples.push(Number(process.hrtime.bigint() - start) / 1e6)
  }
  samples.sort((a, b) => a - b)
  return samples[Math.floor(samples.length / 2)]!
}

export async function run(): Promise<Record<string, number>> {
  const lines = generateFile()
  const content = `${lines.join("\n")}\n`
  // The last "load" method's body: 5 lines, near the end of the file, unique (its service number).
  const at = lines.findLastIndex(
    (line, i) => line.startsWith("\t\tif (!options.force") && i + 5 < lines.length,
  )
  const block = lines.slice(at, at + 5)
  const exactOld = block.join("\n")
  const exactNew = block
    .map((line) => line.replace("this.cache.get(id)!", "this.cache.get(id) ?? 0"))
    .join("\n")
  const spaced = (text: string) => text.replaceAll("\t", "    ")
  const missing = spaced(exactOld).replace("fetchValue", "fetchValues").replace("options.force", "opts.force")

  const exact = replace({ content, oldString: exactOld, newString: exactNew })
  const fuzzy = replace({ content, oldString: spaced(exactOld), newString: spaced(exactNew) })
  const miss = replace({ content, oldString: missing, newString: "x" })
  if (!exact.ok || exact.matcher !== "exact") throw new Error("the exact edit did not apply exactly")
  if (!fuzzy.ok || fuzzy.matcher !== "line-trimmed" || fuzzy.content !== exact.content) {
    throw new Error("the fuzzy edit did not give the exact edit's result")
  }
  if (miss.ok || miss.reason !== "not-found" || !miss.message.includes(`lines ${at + 1}-${at + 5}`)) {
    throw new Error("the miss did not name the closest region")
  }

  return {
    lines: LINES,
    bytes: Buffer.byteLength(content),
    exact_ms: median(() => replace({ content, oldString: exactOld, newString: exactNew })),
    fuzzy_indentation_ms: median(() =>
      replace({ content, oldString: spaced(exactOld), newString: spaced(exactNew) }),
    ),
    not_found_ms: median(() => replace({ content, oldString: missing, newString: "x" })),
    crlf_exact_ms: median(() =>
      replace({ content: content.replaceAll("\n", "\r\n"), oldString: exactOld, newString: exactNew }),
    ),
  }
}

export function report(r: Record<string, number>): void {
  console.log(
    `edit on a generated ${r.lines}-line file (${(r.bytes! / 1024).toFixed(0)} KiB), median of ${ROUNDS}`,
  )
  console.log(`  exact 5-line edit near the end        ${r.exact_ms!.toFixed(2)} ms`)
  console.log(`  same edit, 4 spaces for tabs (fuzzy)  ${r.fuzzy_indentation_ms!.toFixed(2)} ms`)
  console.log(`  miss, with the closest region         ${r.not_found_ms!.toFixed(2)} ms`)
  console.log(
    `  exact edit in the CRLF version        ${r.crlf_exact_ms!.toFixed(2)} ms (incl. converting the text)`,
  )
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) report(await run())
