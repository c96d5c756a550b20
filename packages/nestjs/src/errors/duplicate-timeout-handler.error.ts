/** Two `@OnTimeout` methods claim the same topic in one application (thrown at `onModuleInit`). */
export class DuplicateTimeoutHandlerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
