/** An `@OnTimeout` method names a topic the module was not configured with (thrown at `onModuleInit`). */
export class UnknownTimeoutTopicError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
