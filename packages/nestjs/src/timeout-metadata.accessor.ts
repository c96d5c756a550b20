import { Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ON_TIMEOUT_METADATA } from './durable-timeout.constants.js';

/** Reads `@OnTimeout` metadata; the only place that knows where the decorator stores it. */
@Injectable()
export class TimeoutMetadataAccessor {
  constructor(private readonly reflector: Reflector) {}

  /** The topic a method handles, or undefined when it has no `@OnTimeout`. */
  getTopic(target: Function): unknown {
    return this.reflector.get<unknown>(ON_TIMEOUT_METADATA, target);
  }
}
