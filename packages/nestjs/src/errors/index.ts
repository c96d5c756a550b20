export { DuplicateTimeoutHandlerError } from './duplicate-timeout-handler.error.js';
export { InvalidModuleOptionsError } from './invalid-module-options.error.js';
export { InvalidTimeoutHandlerError } from './invalid-timeout-handler.error.js';
export { ModuleNotStartedError } from './module-not-started.error.js';
export { TopicDeclarationConflictError } from './topic-declaration-conflict.error.js';
export { UnregisteredFeatureTopicsError } from './unregistered-feature-topics.error.js';
