export { OnTimeout, type OnTimeoutMethod } from './on-timeout.decorator.js';
