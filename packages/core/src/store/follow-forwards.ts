/** Most slots a call on one delivery follows after slot migrations moved it (a migration moves it once). */
export const MAX_FORWARDS = 4;

/**
 * Follows a delivery that slot migrations moved while its handler ran: from the store's `first`
 * answer on the slot it was claimed from, while an answer names the slot a migration forwarded the
 * delivery to (`forwardedTo`), sends the call (ack, renew, fail or release) again there, at most
 * `MAX_FORWARDS` times. Resolves with the last answer; one that still names a forward means the
 * delivery moved more often than migrations move it, and the caller treats it as stale.
 */
export async function followForwards<T>(first: T, call: (slot: number) => Promise<T>, forwardedTo: (answer: T) => number | undefined): Promise<T> {
  let answer = first;
  for (let hops = 0; hops < MAX_FORWARDS; hops++) {
    const slot = forwardedTo(answer);
    if (slot === undefined) break;
    answer = await call(slot);
  }
  return answer;
}
