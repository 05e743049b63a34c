const NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/

export class RegistrationError extends Error {
  override readonly name = "RegistrationError"
}

/** Tool names use a conservative grammar every provider accepts. */
export function assertToolName(name: string): void {
  if (!NAME.test(name)) {
    throw new RegistrationError(
      `Invalid tool name ${JSON.stringify(name)}: a name starts with a letter and has only letters, digits, "_" and "-", at most 64 characters (^[A-Za-z][A-Za-z0-9_-]{0,63}$).`,
    )
  }
}
