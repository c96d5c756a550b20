export { OnTimeout, type OnTimeoutCheck, type OnTimeoutMethod, type OnTimeoutPayloadMismatch } from './on-timeout.decorator.js';
export { OnSchedule, type OnScheduleMetadata } from './on-schedule.decorator.js';
