import { Global, Module } from '@nestjs/common';
import { APP_NAME, REDIS_CLIENT, RedisClientCloser, redisClientProvider } from '@durable-timeout/sample-app-support';

/** The app's name and its own Redis connection (the state), shared by every module of the app. */
@Global()
@Module({
  providers: [{ provide: APP_NAME, useValue: 'orders' }, redisClientProvider('orders'), RedisClientCloser],
  exports: [APP_NAME, REDIS_CLIENT],
})
export class RedisModule {}
