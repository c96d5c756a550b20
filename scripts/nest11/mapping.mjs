// The Nest packages the Nest 11 run maps to this folder's install (package.json, package-lock.json).
import { fileURLToPath } from 'node:url';

/** Folder of the Nest 11 install. */
export const nest11Dir = fileURLToPath(new URL('./', import.meta.url));

/** `@nestjs/<name>` packages taken from the Nest 11 install. */
export const nest11Packages = ['common', 'core', 'testing', 'terminus', 'config', 'platform-express'];

/** Jest moduleNameMapper entries: `@nestjs/<name>` -> this folder's node_modules. */
export const nest11ModuleMapper = Object.fromEntries(
  nest11Packages.map((name) => [`^@nestjs/${name}$`, `${nest11Dir}node_modules/@nestjs/${name}`]),
);
