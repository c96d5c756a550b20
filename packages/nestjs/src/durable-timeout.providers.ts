import type { Provider } from '@nestjs/common';
import { TimeoutExplorer } from './timeout.explorer.js';
import { ScheduleExplorer } from './schedule.explorer.js';
import { TimeoutHandlerRegistry } from './timeout-handler.registry.js';
import { TimeoutMetadataAccessor } from './timeout-metadata.accessor.js';
import { TimeoutOrchestrator } from './timeout.orchestrator.js';
import { TimeoutReadinessWatcher } from './timeout-readiness.watcher.js';
import { TimeoutScheduler } from './timeout.scheduler.js';

/**
 * Providers shared by `DurableTimeoutModule` and `DurableTimeoutTestingModule`; each module adds
 * the engine (`DURABLE_TIMEOUTS`) and the settings (`DURABLE_TIMEOUT_SETTINGS`).
 */
export const durableTimeoutProviders: Provider[] = [
  TimeoutMetadataAccessor,
  TimeoutHandlerRegistry,
  TimeoutReadinessWatcher,
  TimeoutExplorer,
  ScheduleExplorer,
  TimeoutOrchestrator,
  TimeoutScheduler,
];
