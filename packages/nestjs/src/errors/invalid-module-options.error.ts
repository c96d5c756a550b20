/** `DurableTimeoutModule` options that cannot work (thrown when the module's providers are created). */
export class InvalidModuleOptionsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
