// Background jobs: commands that keep running after the call that started them, per session.
export {
  Job,
  JobError,
  type JobRead,
  JobRegistry,
  type JobStatus,
  jobs,
  killAllJobs,
  killSessionJobs,
  MAX_RUNNING_PER_SESSION,
} from "./jobs.ts"
export { type Region, readRegion } from "./read.ts"
export { portOpen, type Readiness, type ReadyOutcome, waitForReady } from "./ready.ts"
