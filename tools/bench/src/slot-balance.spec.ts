import { describe, expect, it } from '@jest/globals';
import { busiestMasterRatio, crc16, hashSlotOf, slotsPerMaster } from './slot-balance.js';

describe('slot balance over cluster masters', () => {
  it('hashes as Redis Cluster does', () => {
    // The CRC16/XMODEM check value, and the example of the Redis Cluster specification.
    expect(crc16('123456789')).toBe(0x31c3);
    expect(hashSlotOf('cpu', 0)).toBe(crc16('cpu:0') % 16_384);
  });

  it('spreads a topic over masters as the local cluster did', () => {
    // 64 slots of topic `cpu` on a 3-master cluster held 18, 24 and 22 slots (bench redis-cpu run).
    expect(slotsPerMaster('cpu', 64, 3)).toEqual([18, 24, 22]);
    expect(busiestMasterRatio('cpu', 64, 3)).toBeCloseTo(24 / (64 / 3), 9);
  });

  it('counts every slot once', () => {
    for (const masters of [1, 3, 7, 16]) expect(slotsPerMaster('payment', 1_024, masters).reduce((a, b) => a + b, 0)).toBe(1_024);
    expect(busiestMasterRatio('payment', 16, 1)).toBe(1);
  });
});
