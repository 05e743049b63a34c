// The edit corpus (src/tools/edit/fixtures/corpus/): every imperfect edit call through the real edit
// tool, scored per category (right, destructive, missed), plus the cases that were not right.
// Counts, not timings: the test (corpus.test.ts) keeps them from dropping. Run: npm run bench -- edit-corpus
import { pathToFileURL } from "node:url"
import { loadCorpus } from "../src/tools/edit/fixtures/corpus/case.ts"
import {
  describeFailures,
  formatTally,
  type Outcome,
  runCorpus,
  tally,
} from "../src/tools/edit/fixtures/corpus/score.ts"

export async function run(): Promise<{ outcomes: Outcome[]; languages: number }> {
  const cases = loadCorpus()
  return { outcomes: await runCorpus(cases), languages: new Set(cases.map((c) => c.language)).size }
}

export function report({ outcomes, languages }: { outcomes: Outcome[]; languages: number }): void {
  console.log(`edit corpus: ${outcomes.length} cases in ${languages} languages`)
  console.log(formatTally(tally(outcomes)))
  const failures = describeFailures(outcomes)
  if (failures) console.log(`\n${failures}`)
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) report(await run())
