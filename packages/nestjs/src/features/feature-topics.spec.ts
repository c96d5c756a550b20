import { describe, expect, it } from '@jest/globals';
import type { PayloadCodec } from '@durable-timeout/core';
import { TopicDeclarationConflictError } from '../errors/topic-declaration-conflict.error.js';
import { mergeTopicDeclarations } from './feature-topics.js';

const codec = (): PayloadCodec => ({ encode: (bytes) => bytes, decode: (bytes) => bytes });

describe('mergeTopicDeclarations and codecs', () => {
  it('takes a topic declared twice with the same codec once', () => {
    const shared = codec();
    const merged = mergeTopicDeclarations([
      { declaredBy: 'A', topics: { payment: { codec: shared } } },
      { declaredBy: 'B', topics: { payment: { codec: shared } } },
    ]);
    expect(merged['payment']?.codec).toBe(shared);
  });

  it('refuses a topic declared with two different codecs, though their JSON is the same', () => {
    const merge = () =>
      mergeTopicDeclarations([
        { declaredBy: 'A', topics: { payment: { codec: codec() } } },
        { declaredBy: 'B', topics: { payment: { codec: codec() } } },
      ]);
    expect(merge).toThrow(TopicDeclarationConflictError);
  });
});
