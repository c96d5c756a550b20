/**
 * Watches the fencing tokens of the deliveries of one topic, slot by slot. Each slot has one token
 * counter, so a token handed to two different ids of the same slot means the counter stepped back
 * (it handed the token out again); two runs of the same id with the same token are the same claim
 * seen twice, not a repeat. (Runs of one id whose token does not grow are the effects records'
 * token regressions.) Tokens of different slots may coincide: their counters are independent.
 */
export class SlotTokens {
  private readonly owners = new Map<string, string>();
  private repeatCount = 0;
  private example: string | undefined;

  /** Notes a delivery of `id` in `slot` with `token`; returns true when another id of the slot had that token. */
  record(slot: number, id: string, token: number): boolean {
    const key = `${slot}:${token}`;
    const owner = this.owners.get(key);
    if (owner === undefined) {
      this.owners.set(key, id);
      return false;
    }
    if (owner === id) return false;
    this.repeatCount += 1;
    this.example ??= `slot ${slot} token ${token}: ${owner} and ${id}`;
    return true;
  }

  /** Deliveries whose token another id of the same slot had already been given. */
  get repeats(): number {
    return this.repeatCount;
  }

  /** The first repeat seen, for the failure line. */
  get firstRepeat(): string | undefined {
    return this.example;
  }
}
