import { describe, expect, it } from '@jest/globals';
import { loadScripts } from '../commands/index.js';
import { aclRulesFor, REDIS_STORE_COMMANDS } from './redis-acl.js';

describe('aclRulesFor', () => {
  it('confines a user to the keys and wake-up channels of the prefix and the commands the store sends', () => {
    expect(aclRulesFor('dt')).toBe(
      'resetkeys resetchannels ~dt:{* ~dt:topics &dt:wake:* -@all +evalsha +eval +time +zadd +zrem +zrange +zrangebyscore +zscore ' +
        '+zcard +hget +hset +hsetnx +hkeys +hdel +get +set +pexpire +publish +ping +subscribe +unsubscribe +quit +info +hgetall',
    );
  });

  it('escapes glob characters of the prefix so it matches itself only', () => {
    expect(aclRulesFor('a*b?[c]\\d')).toContain('~a\\*b\\?\\[c\\]\\\\d:{* ~a\\*b\\?\\[c\\]\\\\d:topics &a\\*b\\?\\[c\\]\\\\d:wake:*');
  });

  it('adds the cluster commands and can leave INFO out', () => {
    const rules = aclRulesFor('dt', { cluster: true, withoutInfo: true }).split(' ');
    expect(rules.slice(-3)).toEqual(['+cluster|slots', '+cluster|info', '+asking']);
    expect(rules).not.toContain('+info');
    expect(aclRulesFor('dt').split(' ')).not.toContain('+asking');
  });

  it('grants every command the scripts call, once', () => {
    const rules = aclRulesFor('dt').split(' ');
    const called = new Set<string>();
    for (const script of loadScripts().values()) {
      for (const match of script.lua.matchAll(/(?:rcall|redis\.call)\('([A-Za-z]+)'/g)) called.add(match[1]!.toLowerCase());
    }
    expect(called.size).toBeGreaterThan(10);
    for (const command of called) expect(REDIS_STORE_COMMANDS.insideScripts).toContain(command);
    for (const command of REDIS_STORE_COMMANDS.insideScripts) expect(rules).toContain(`+${command}`);
    const grants = rules.filter((rule) => rule.startsWith('+'));
    expect(new Set(grants).size).toBe(grants.length);
  });
});
