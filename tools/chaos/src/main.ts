// The fault-injection suite (`npm run chaos`): runs the scenarios (docs/RELIABILITY.md) against real worker
// processes and real Redis servers, prints a table of figures, optionally writes the JSON report,
// and exits 1 when a scenario fails.
import { writeFileSync } from 'node:fs';
import { RedisServer } from '@durable-timeout/redis-testing';
import { parseOptions } from './cli-options.js';
import { killAll } from './harness/processes.js';
import { formatTable, jsonReport, testCounts } from './harness/report.js';
import { uncountedResult, type RunContext, type ScenarioResult } from './harness/rig.js';
import { ON_REQUEST, SCENARIOS } from './scenarios/index.js';

let options;
try {
  options = parseOptions(process.argv.slice(2), [...SCENARIOS, ...ON_REQUEST].map((scenario) => scenario.name));
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}

const everything = [...SCENARIOS, ...ON_REQUEST];
const selected =
  options.only.length > 0
    ? everything.filter((scenario) => options.only.includes(scenario.name))
    : [...SCENARIOS, ...(options.model ? ON_REQUEST : [])].filter((scenario) => !(options.quick && scenario.fullOnly));
const effects = await RedisServer.start();
const effectsClient = effects.client({ maxRetriesPerRequest: 3 });
const say = (line: string) => console.log(`[chaos ${new Date().toISOString().slice(11, 19)}] ${line}`);
const context: RunContext = { quick: options.quick, effectsUrl: effects.url, effectsClient, say };

const results: ScenarioResult[] = [];
const suiteStarted = Date.now();
for (const scenario of selected) {
  say(`${scenario.name}: running${options.quick ? ' (quick)' : ''}`);
  const started = Date.now();
  let result: ScenarioResult;
  try {
    result = await scenario.run(context);
  } catch (error) {
    result = uncountedResult(scenario.name, [`the scenario crashed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`]);
  }
  result.notes.push(`ran in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  results.push(result);
  say(`${scenario.name}: ${result.pass ? 'pass' : result.notRun !== undefined ? 'NOT RUN' : 'FAIL'} in ${((Date.now() - started) / 1000).toFixed(1)} s${result.pass ? '' : ` (${result.failures.join('; ')})`}`);
}

console.log(`\n${formatTable(results)}\n`);
const counts = testCounts(results);
console.log(`chaos${options.quick ? ' --quick' : ''}: ${counts.passed} passed, ${counts.failed} failed, ${counts.notRun} not run in ${((Date.now() - suiteStarted) / 1000).toFixed(0)} s`);
if (options.jsonFile) writeFileSync(options.jsonFile, `${JSON.stringify(jsonReport(results), null, 2)}\n`);
if (process.env.TEST_RESULT_FILE) writeFileSync(process.env.TEST_RESULT_FILE, JSON.stringify(counts));

effectsClient.disconnect();
await effects.stop();
killAll();
process.exit(counts.failed > 0 ? 1 : 0);
