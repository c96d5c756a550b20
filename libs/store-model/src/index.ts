export { StoreModel, MODEL_EXPIRY, compareIds, type ModelEntry } from './reference-model.js';
export { modelCommands, IDS, TOPIC, type ModelSubject } from './model-commands.js';
export { checkStoreAgainstModel, type ModelRunOptions, type ModelRunFigures, type ModelSubjectFactory } from './check-store.js';
export { memoryModelSubject, redisModelSubject } from './subjects.js';
