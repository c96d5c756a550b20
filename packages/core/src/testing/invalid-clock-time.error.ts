/** `ManualClock` was given a time or a step it cannot take (not finite, negative, or back in time). */
export class InvalidClockTimeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
