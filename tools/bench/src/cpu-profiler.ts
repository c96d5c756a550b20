import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

/**
 * The V8 CPU profiler of this process (what `node --cpu-prof` uses), started and stopped around
 * the firing window only, so module loading and start-up stay out of the profile.
 */
export class CpuProfiler {
  private session: Session | undefined;

  /** Starts sampling. */
  async start(): Promise<void> {
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    await session.post('Profiler.start');
    this.session = session;
  }

  /** Stops sampling and writes the `.cpuprofile` to `file` (open it in Chrome DevTools). */
  async stopTo(file: string): Promise<void> {
    const session = this.session;
    if (!session) return;
    this.session = undefined;
    const { profile } = await session.post('Profiler.stop');
    session.disconnect();
    writeFileSync(file, JSON.stringify(profile));
  }
}
