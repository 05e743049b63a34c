// What the composition root binds late on purpose: parts built after the ones that call into them.

/**
 * A value bound once, later than the closures that read it are made (a tool's init reads the services,
 * the services call back into the calls). Reading it before `bind` is a start-up bug, said as one.
 */
export class Late<T> {
  #value: T | undefined
  readonly #what: string

  constructor(what: string) {
    this.#what = what
  }

  bind(value: T): T {
    if (this.#value !== undefined) throw new Error(`${this.#what} was bound twice.`)
    this.#value = value
    return value
  }

  get(): T {
    if (this.#value === undefined)
      throw new Error(
        `${this.#what} was used before the toolbelt finished starting; this is a bug in toolbelt.`,
      )
    return this.#value
  }
}
