/**
 * Operations that must not overlap, run one after another in call order.
 * Internal.
 *
 * @module
 */

/** Runs queued operations one at a time; a failed one does not stop the rest. */
export class SerialQueue {
  #tail: Promise<void> = Promise.resolve();
  #pending = 0;

  /** How many operations are queued or running. */
  get pending(): number {
    return this.#pending;
  }

  /** Settles once every operation queued so far has run. */
  get idle(): Promise<void> {
    return this.#tail;
  }

  /**
   * Runs `operation` after every operation queued before it.
   *
   * @returns What `operation` resolves or rejects with.
   */
  run(operation: () => Promise<void>): Promise<void> {
    this.#pending++;
    const run = this.#tail.then(operation).finally(() => this.#pending--);
    this.#tail = run.then(() => {}, () => {});
    return run;
  }
}
