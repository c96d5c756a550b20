// A feature declares its topic next to the code that uses it (what an application writes).
export interface PaymentDeadline {
  orderId: string;
}

declare module '@durable-timeout/nestjs' {
  interface DurableTimeoutTopics {
    payment: PaymentDeadline;
  }
}
