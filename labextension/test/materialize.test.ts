import { describe, expect, it } from 'vitest';

import {
  insertionAnchor,
  materializedCells,
  METADATA_KEY,
  withoutMaterializeHint
} from '../src/materialize';
import { IMaterialize } from '../src/protocol';

const message: IMaterialize = {
  type: 'materialize',
  cells: [
    { code: 'df = load()', metadata: { session: 'main', step: 1, model: 'demo' } },
    { code: 'df.plot()', metadata: { session: 'main', step: 2, model: null } }
  ],
  cell_id: 'agent-cell',
  request_id: null
};

describe('materializedCells', () => {
  it('makes one code cell per step, in order, with its provenance', () => {
    expect(materializedCells(message)).toEqual([
      {
        cell_type: 'code',
        source: 'df = load()',
        metadata: { [METADATA_KEY]: { session: 'main', step: 1, model: 'demo' } }
      },
      {
        cell_type: 'code',
        source: 'df.plot()',
        metadata: { [METADATA_KEY]: { session: 'main', step: 2, model: null } }
      }
    ]);
  });
});

describe('insertionAnchor', () => {
  const ids = ['intro', 'agent-cell', 'after'];

  it('is the agent cell when the notebook holds it', () => {
    expect(insertionAnchor(ids, 'agent-cell', 2)).toBe(1);
    expect(insertionAnchor(ids, 'agent-cell', null)).toBe(1);
  });

  it('falls back to the active cell only where asked to', () => {
    expect(insertionAnchor(ids, 'elsewhere', 2)).toBe(2);
    expect(insertionAnchor(ids, null, 0)).toBe(0);
    expect(insertionAnchor(ids, 'elsewhere', null)).toBeNull();
  });
});

describe('withoutMaterializeHint', () => {
  const hint = 'Materialize 2 cells: run %agent materialize, or the command "Materialize the Agent\'s Code".';
  const html = hint.replace(/"/g, '&quot;');

  it('takes the hint out of every form of a saved answer', () => {
    const data = {
      'text/markdown': `**You:** hi\n\n*${hint}*\n\n*2 steps*`,
      'text/html': `<div class="ja-static">\n<p><strong>You:</strong> hi</p>\n<p><em>${html}</em></p>\n<p><em>2 steps</em></p>\n</div>`,
      'text/plain': `s\n**You:** hi *${hint}* *2 steps*`
    };
    expect(withoutMaterializeHint(data)).toEqual({
      'text/markdown': '**You:** hi\n\n*2 steps*',
      'text/html': '<div class="ja-static">\n<p><strong>You:</strong> hi</p>\n<p><em>2 steps</em></p>\n</div>',
      'text/plain': 's\n**You:** hi *2 steps*'
    });
  });

  it('leaves an output without the hint alone', () => {
    expect(withoutMaterializeHint({ 'text/plain': 'Materialize 2 cells, said the user', 'image/png': 'iVBOR' })).toBeNull();
  });
});
