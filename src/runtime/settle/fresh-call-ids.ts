// Call ids minted in this process for calls about to be settled. No record can exist for such an id, so
// the replay check (a store read on every call, a fortieth of a served call's CPU) is skipped for it.
import { ascending } from "../../platform/util/id.ts"

/** Ids minted and not yet settled; the oldest are let go past this many (their calls just read). */
export const MAX_MINTED = 4096

const minted = new Set<string>()

/** A new call id, known to have no record. */
export function mintCallID(): string {
  const id = ascending("call")
  minted.add(id)
  if (minted.size > MAX_MINTED) minted.delete(minted.values().next().value as string)
  return id
}

/** Whether `callID` was minted here and not yet settled (it then no longer is). */
export function takeMinted(callID: string): boolean {
  return minted.delete(callID)
}
