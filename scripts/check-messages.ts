// The error-message check, run alone: `node scripts/check-messages.ts` lists the messages in src/ that
// break the convention (ARCHITECTURE.md, "Error messages"), then those pending in folders another
// change is editing, then stale allowances. It exits 1 when the first or last list is not empty;
// test/error-messages.test.ts runs the same check in `npm test`.
import { resolve } from "node:path"
import { checkMessages, describe } from "./messages/check.ts"

const report = checkMessages(resolve(import.meta.dirname, ".."))
for (const finding of report.findings) console.log(describe(finding))
if (report.pending.length > 0) console.log(`\nPending (owned by another change; fix next):`)
for (const finding of report.pending) console.log(describe(finding))
for (const allowance of report.stale) console.log(`Stale allowance: ${allowance.file}: ${allowance.why}`)
console.log(
  `\n${report.findings.length} to fix, ${report.pending.length} pending, ${report.stale.length} stale allowance(s).`,
)
process.exitCode = report.findings.length + report.stale.length > 0 ? 1 : 0
