export type {
  DurableTimeoutFeatureOptions,
  DurableTimeoutModuleExtras,
  DurableTimeoutModuleOptions,
  DurableTimeoutSettings,
} from './durable-timeout-module-options.interface.js';
