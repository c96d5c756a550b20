import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';
import { loadRidesConfig } from './config/rides.config.js';

const config = loadRidesConfig();
const app = await NestFactory.create(AppModule.register(config));
// SIGTERM (a rolling deploy) runs the shutdown hooks: durable mode drains running timeout
// handlers and hands the rest back to the other instances before the process exits.
app.enableShutdownHooks();
await app.listen(config.PORT);
new Logger('Bootstrap').log(
  `rides listening on port ${config.PORT} (mode ${config.TIMEOUT_MODE}, driver-match timeout ${config.DRIVER_MATCH_TIMEOUT_MS} ms` +
    `${config.INSTANCE_ID ? `, instance ${config.INSTANCE_ID}` : ''})`,
);
