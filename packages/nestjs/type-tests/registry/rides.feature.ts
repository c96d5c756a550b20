// A second feature adds its own topic to the same declaration.
export interface RideDeadline {
  tripId: string;
}

declare module '@durable-timeout/nestjs' {
  interface DurableTimeoutTopics {
    ride: RideDeadline;
  }
}
