/**
 * `DurableTimeoutModule` options that cannot work (thrown when the module's providers are created).
 * The core's `InvalidOptionsError` that names the option is its `cause`.
 */
export class InvalidModuleOptionsError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}
