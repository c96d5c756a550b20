export { ChaosHarnessError } from './chaos-harness.error.js';
export { InvalidChaosOptionError } from './invalid-chaos-option.error.js';
export { PlannedFailureError } from './planned-failure.error.js';
