export { OnTimeout, type OnTimeoutCheck, type OnTimeoutMethod, type OnTimeoutPayloadMismatch } from './on-timeout.decorator.js';
