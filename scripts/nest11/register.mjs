// `node --import <this file>`: maps `@nestjs/*` to the Nest 11 scratch install (resolve-hook.mjs).
import { register } from 'node:module';

register('./resolve-hook.mjs', import.meta.url);
