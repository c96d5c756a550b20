export { OnTimeout } from './on-timeout.decorator.js';
