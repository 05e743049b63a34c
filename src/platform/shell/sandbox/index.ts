// The opt-in shell sandbox: bubblewrap on Linux, refusing (never falling back) where it cannot run.
export {
  type Availability,
  bwrapArgs,
  describePolicy,
  gitProtectedPaths,
  type SandboxPolicy,
  sandboxArgv,
  sandboxAvailability,
} from "./bwrap.ts"
