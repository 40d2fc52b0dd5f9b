import { describe, expect, it } from 'vitest';
import { PIPE_WIDTHS_FAST_FP64, PIPE_WIDTHS_SM80, slot17HandlerA, slot17HandlerB, slot17NoOp } from './index.js';

describe('shared SM backend pieces', () => {
  it('slot-17 handlers say what they are', () => {
    expect(slot17NoOp.status).toBe('noop');
    expect([slot17HandlerA.status, slot17HandlerB.status]).toEqual(['implemented', 'implemented']);
    expect(slot17HandlerA.name).toContain('sub_849110');
    expect(slot17HandlerB.name).toContain('sub_729160');
  });
  it('pipe widths follow the spec table for sm_80', () => {
    expect(PIPE_WIDTHS_SM80).toEqual([4, 4, 1, 1, 2, 1, 1]);
    expect(PIPE_WIDTHS_FAST_FP64[2]).toBe(2);
  });
});
