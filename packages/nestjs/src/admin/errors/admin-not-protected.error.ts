/** `DurableTimeoutAdminModule` was given neither a guard nor a token: it refuses to mount an open page. */
export class AdminNotProtectedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
