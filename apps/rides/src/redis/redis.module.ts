import { Global, Module } from '@nestjs/common';
import { REDIS_CLIENT, RedisClientCloser, redisClientProvider } from './redis.providers.js';

/** The app's own Redis connection (the state), shared by every module of the app. */
@Global()
@Module({ providers: [redisClientProvider, RedisClientCloser], exports: [REDIS_CLIENT] })
export class RedisModule {}
