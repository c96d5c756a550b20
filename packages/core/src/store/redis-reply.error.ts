/** A store script answered something this version cannot read (data from another version, or edited by hand). */
export class RedisReplyError extends Error {
  /** The script that answered. */
  readonly script: string;

  constructor(message: string, script: string) {
    super(message);
    this.name = new.target.name;
    this.script = script;
  }
}
