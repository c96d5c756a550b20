import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { readConfigOrExit } from '@durable-timeout/sample-app-support';
import { AppModule } from './app.module.js';
import { loadRidesConfig } from './config/rides.config.js';

const config = readConfigOrExit(() => loadRidesConfig());
const app = await NestFactory.create(AppModule.register(config));
// SIGTERM (a rolling deploy) runs the shutdown hooks: running timeout handlers drain and the
// rest are handed back to the other instances before the process exits.
app.enableShutdownHooks();
await app.listen(config.PORT);
new Logger('Bootstrap').log(
  `rides listening on port ${config.PORT} (driver match ${config.DRIVER_MATCH_TIMEOUT_MS} ms, ` +
    `driver arrival ${config.DRIVER_ARRIVAL_TIMEOUT_MS} ms, rider boarding ${config.RIDER_NO_SHOW_TIMEOUT_MS} ms` +
    `${config.RIDER_WEBHOOK_URL ? ', rider webhook on' : ''}${config.INSTANCE_ID ? `, instance ${config.INSTANCE_ID}` : ''})`,
);
