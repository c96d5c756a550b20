export { BenchUsageError } from './bench-usage.error.js';
export { UnexpectedInfoError } from './unexpected-info.error.js';
export { UnsupportedTargetError } from './unsupported-target.error.js';
export { WorkerProcessError } from './worker-process.error.js';
