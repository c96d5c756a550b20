import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { InvalidConfigError } from '@durable-timeout/sample-app-support';
import { AppModule } from './app.module.js';
import { loadRidesConfig, type RidesConfig } from './config/rides.config.js';

const config = readConfigOrExit();
const app = await NestFactory.create(AppModule.register(config));
// SIGTERM (a rolling deploy) runs the shutdown hooks: durable mode drains running timeout
// handlers and hands the rest back to the other instances before the process exits.
app.enableShutdownHooks();
await app.listen(config.PORT);
new Logger('Bootstrap').log(
  `rides listening on port ${config.PORT} (mode ${config.TIMEOUT_MODE}, ` +
    `driver-match timeout ${config.DRIVER_MATCH_TIMEOUT_MS} ms` +
    `${config.INSTANCE_ID ? `, instance ${config.INSTANCE_ID}` : ''})`,
);

/** A bad environment variable ends the process with its one-line explanation, not a stack trace. */
function readConfigOrExit(): RidesConfig {
  try {
    return loadRidesConfig();
  } catch (error) {
    if (!(error instanceof InvalidConfigError)) throw error;
    new Logger('Bootstrap').fatal(error.message);
    process.exit(1);
  }
}
