import type { Command } from 'commander';
import type { AdminSession } from '../admin-session.js';
import type { Output } from '../output/output.js';

/** The options every command takes (they may stand before or after the command name). */
export interface GlobalOptions {
  url: string;
  cluster?: string;
  sentinel?: string;
  name?: string;
  tls?: boolean;
  user?: string;
  password?: string;
  prefix: string;
  slots?: number;
  timeout: number;
  json: boolean;
  showPayloads: boolean;
}

/** What a command's work gets: an open session, the output, the global options, and the local clock. */
export interface CommandContext {
  session: AdminSession;
  output: Output;
  options: GlobalOptions;
  /** ms since the epoch, for "in 12 s" / "overdue 3 s" (display only). */
  now: number;
}

/** Runs a command's work in a session opened from its options, and closes the session afterwards. */
export type RunCommand = (command: Command, work: (context: CommandContext) => Promise<void>) => Promise<void>;
