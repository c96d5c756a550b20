/** An option of `RedisTimeoutStore` is invalid; the message names it and says what is accepted. */
export class InvalidStoreOptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
