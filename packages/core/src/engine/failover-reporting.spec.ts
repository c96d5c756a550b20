import { describe, expect, it } from '@jest/globals';
import { RedisUnavailableError } from '../store/redis-unavailable.error.js';
import { FailoverReporting } from './failover-reporting.js';

describe('FailoverReporting', () => {
  const failover = () => new RedisUnavailableError('x', 'claim', { failover: true });

  it('treats failover symptoms as warnings within the grace, errors after it, and starts again once healthy', () => {
    let now = 0;
    const reporting = new FailoverReporting(1_000, () => now);
    expect(reporting.isWarning(failover())).toBe(true);
    now = 999;
    expect(reporting.isWarning(new Error('CLUSTERDOWN The cluster is down'))).toBe(true);
    now = 1_000;
    expect(reporting.isWarning(failover())).toBe(false);
    reporting.healthy();
    now = 5_000;
    expect(reporting.isWarning(failover())).toBe(true);
  });

  it('never treats other failures as warnings', () => {
    const reporting = new FailoverReporting(1_000, () => 0);
    expect(reporting.isWarning(new RedisUnavailableError('down', 'schedule'))).toBe(false);
    expect(reporting.isWarning(new Error('connect ECONNREFUSED 127.0.0.1:6379'))).toBe(false);
    expect(reporting.isWarning(new Error('ERR Error running script'))).toBe(false);
  });
});
