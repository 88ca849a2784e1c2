/**
 * The inline diff of Edit with Agent: which lines an edit removes, keeps and adds.
 */

import { describe, expect, it } from 'vitest';

import { lineDiff } from '../src/diff';

describe('lineDiff', () => {
  it('keeps common lines and marks the changed ones', () => {
    expect(lineDiff('a\nb\nc', 'a\nB\nc\nd')).toEqual([
      { sign: ' ', text: 'a' },
      { sign: '-', text: 'b' },
      { sign: '+', text: 'B' },
      { sign: ' ', text: 'c' },
      { sign: '+', text: 'd' }
    ]);
  });

  it('shows a new cell as added lines only', () => {
    expect(lineDiff('', 'x = 1\nprint(x)')).toEqual([
      { sign: '+', text: 'x = 1' },
      { sign: '+', text: 'print(x)' }
    ]);
  });

  it('shows no change as kept lines', () => {
    expect(lineDiff('same', 'same')).toEqual([{ sign: ' ', text: 'same' }]);
  });
});
