/** An option of `DurableTimeoutAdminModule` cannot work; the message names it and says what is accepted. */
export class InvalidAdminOptionsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
