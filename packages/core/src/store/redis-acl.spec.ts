import { describe, expect, it } from '@jest/globals';
import { aclRulesFor, REDIS_STORE_COMMANDS } from './redis-acl.js';

describe('aclRulesFor', () => {
  it('confines a user to the keys and wake-up channels of the prefix and the commands the store sends', () => {
    expect(aclRulesFor('dt')).toBe(
      'resetkeys resetchannels ~dt:{* &dt:wake:* -@all +evalsha +eval +time +zadd +zrem +zrange +zrangebyscore +zscore +zcard ' +
        '+hget +hset +hdel +incrby +publish +ping +subscribe +unsubscribe +quit +info',
    );
  });

  it('escapes glob characters of the prefix so it matches itself only', () => {
    expect(aclRulesFor('a*b?[c]\\d')).toContain('~a\\*b\\?\\[c\\]\\\\d:{* &a\\*b\\?\\[c\\]\\\\d:wake:*');
  });

  it('adds the cluster commands and can leave INFO out', () => {
    const rules = aclRulesFor('dt', { cluster: true, withoutInfo: true }).split(' ');
    expect(rules.slice(-3)).toEqual(['+cluster|slots', '+cluster|info', '+asking']);
    expect(rules).not.toContain('+info');
    expect(aclRulesFor('dt').split(' ')).not.toContain('+asking');
  });

  it('grants every command the scripts call, once', () => {
    const rules = aclRulesFor('dt').split(' ');
    for (const command of REDIS_STORE_COMMANDS.insideScripts) expect(rules).toContain(`+${command}`);
    const grants = rules.filter((rule) => rule.startsWith('+'));
    expect(new Set(grants).size).toBe(grants.length);
  });
});
