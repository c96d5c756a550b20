import { DurableTimeoutError } from '../errors/durable-timeout.error.js';

/** A store script answered something this version cannot read (data from another version, or edited by hand). */
export class RedisReplyError extends DurableTimeoutError {
  /** The script that answered. */
  readonly script: string;

  constructor(message: string, script: string) {
    super(message);
    this.script = script;
  }
}
