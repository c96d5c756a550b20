import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { CallDeadlines } from './call-deadlines.js';

describe('CallDeadlines', () => {
  beforeEach(() => {
    jest.useFakeTimers();
  });

  afterEach(() => {
    jest.useRealTimers();
  });

  const never = () => new Promise<never>(() => undefined);

  it('passes through results and errors that come in time', async () => {
    const deadlines = new CallDeadlines(1_000);
    await expect(deadlines.run(Promise.resolve(42), () => new Error('late'))).resolves.toBe(42);
    await expect(deadlines.run(Promise.reject(new Error('own')), () => new Error('late'))).rejects.toThrow('own');
  });

  it('rejects calls that did not settle within the timeout, in order, and only those', async () => {
    const deadlines = new CallDeadlines(1_000);
    const first = deadlines.run(never(), () => new Error('first late'));
    jest.advanceTimersByTime(500);
    const second = deadlines.run(never(), () => new Error('second late'));
    const firstOutcome = first.catch((error: Error) => error.message);
    let secondSettled = false;
    const secondOutcome = second.catch((error: Error) => {
      secondSettled = true;
      return error.message;
    });
    jest.advanceTimersByTime(600);
    expect(await firstOutcome).toBe('first late');
    await Promise.resolve();
    expect(secondSettled).toBe(false);
    jest.advanceTimersByTime(500);
    expect(await secondOutcome).toBe('second late');
  });

  it('measures the timeout on the monotonic clock: wall-clock steps neither expire nor extend a call', async () => {
    const deadlines = new CallDeadlines(1_000);
    let outcome = 'pending';
    const settled = deadlines.run(never(), () => new Error('late')).catch((error: Error) => {
      outcome = error.message;
    });
    // An NTP step forward of an hour must not fail a call that has waited 500 ms...
    jest.setSystemTime(Date.now() + 3_600_000);
    jest.advanceTimersByTime(500);
    await Promise.resolve();
    expect(outcome).toBe('pending');
    // ...and a step back of two hours must not keep it waiting past its timeout.
    jest.setSystemTime(Date.now() - 7_200_000);
    jest.advanceTimersByTime(600);
    await settled;
    expect(outcome).toBe('late');
  });

  it('stops its timer when nothing is waiting', async () => {
    const deadlines = new CallDeadlines(100);
    await deadlines.run(Promise.resolve(1), () => new Error('late'));
    jest.advanceTimersByTime(200);
    expect(jest.getTimerCount()).toBe(0);
  });
});

describe('CallDeadlines after this process stalled', () => {
  it('does not fail a call whose reply arrived in time but was not yet read when the stalled loop came back', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
    const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
    await new Promise<void>((resolve) => client.once('connect', () => resolve()));
    const peer = await accepted;
    try {
      const deadlines = new CallDeadlines(50, 5);
      const reply = new Promise<string>((resolve) => client.once('data', (data) => resolve(String(data))));
      const call = deadlines.run(reply, () => new Error('Redis did not answer within 50 ms'));
      // The reply is sent at once; then this process is busy for longer than the deadline, so the
      // deadline timer and the reply's read are both due when the loop comes back.
      peer.write('pong');
      const busyUntil = performance.now() + 150;
      while (performance.now() < busyUntil) {
        // a long synchronous stretch (or a starved CPU)
      }
      await expect(call).resolves.toBe('pong');
    } finally {
      client.destroy();
      peer.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
