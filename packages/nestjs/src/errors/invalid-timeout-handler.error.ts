/** An `@OnTimeout` decorator was given something other than a topic name (thrown at `onModuleInit`). */
export class InvalidTimeoutHandlerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
