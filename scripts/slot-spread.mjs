// How evenly a topic's slots spread over the masters of a Redis Cluster: for each master count
// and slot count, the busiest master's share of the slots over the mean share, the worst over a
// few topic names (hash slots in equal contiguous ranges per master, as `redis-cli --cluster
// create` assigns them). A computation, not a load measurement. Run after `npm run build`:
//
//   node scripts/slot-spread.mjs [topic ...]
import { busiestMasterRatio } from '../tools/bench/dist/slot-balance.js';

const topics = process.argv.length > 2 ? process.argv.slice(2) : ['payment', 'orders', 'rides', 'reminders', 'bench', 'cpu', 't1', 'invoice-expiry'];
const slotCounts = [16, 64, 256, 1024];
console.log(`busiest master / mean, worst of: ${topics.join(', ')}`);
console.log(`| masters | ${slotCounts.map((s) => `${s} slots`).join(' | ')} |`);
console.log(`| ---: | ${slotCounts.map(() => '---:').join(' | ')} |`);
for (const masters of [3, 4, 6, 8, 12, 16, 24, 32]) {
  const cells = slotCounts.map((slots) => Math.max(...topics.map((topic) => busiestMasterRatio(topic, slots, masters))).toFixed(2));
  console.log(`| ${masters} | ${cells.join(' | ')} |`);
}
