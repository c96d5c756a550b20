import { connect } from 'node:net';

/** One command as MONITOR reports it: its arguments (name first), and whether a script ran it. */
export interface MonitoredCommand {
  args: string[];
  /** True for a command a Lua script sent (`[0 lua]` in the MONITOR line). */
  fromScript: boolean;
}

/** A running MONITOR: `stop()` closes its connection. */
export interface CommandMonitor {
  stop(): void;
}

/**
 * Watches every command a Redis server runs (MONITOR) on a plain socket, calling `onCommand` for
 * each. A plain socket rather than a client library's monitor mode: ioredis' can lose track of its
 * reply queue when the stream starts while replies are still in flight ("Command queue state error").
 * Resolves once MONITOR is on (its `+OK` read), so every command sent afterwards is seen.
 */
export async function monitorCommands(port: number, host: string, onCommand: (command: MonitoredCommand) => void): Promise<CommandMonitor> {
  const socket = connect(port, host);
  let pending = '';
  let started: () => void = () => undefined;
  const on = new Promise<void>((resolve) => (started = resolve));
  socket.on('data', (chunk: Buffer) => {
    pending += chunk.toString('latin1');
    const lines = pending.split('\r\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (line === '+OK') started();
      const head = /^\+\d+\.\d+ \[\d+ ([^\]]+)\] /.exec(line);
      if (head) onCommand({ args: parseArgs(line.slice(head[0].length)), fromScript: head[1] === 'lua' });
    }
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.write('MONITOR\r\n');
  await on;
  return { stop: () => socket.destroy() };
}

/** The quoted arguments of a MONITOR line, unescaped (`\"`, `\\`, `\n`, `\r`, `\t`, `\xHH`). */
export function parseArgs(text: string): string[] {
  const args: string[] = [];
  for (const match of text.matchAll(/"((?:[^"\\]|\\.)*)"/g)) {
    args.push(
      match[1]!.replace(/\\(x[0-9a-fA-F]{2}|.)/g, (_escape, code: string) => {
        if (code.startsWith('x') && code.length === 3) return String.fromCharCode(parseInt(code.slice(1), 16));
        return code === 'n' ? '\n' : code === 'r' ? '\r' : code === 't' ? '\t' : code;
      }),
    );
  }
  return args;
}
