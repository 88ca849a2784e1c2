import { describe, expect, it } from 'vitest';

import { userContent } from '../src/pristine';

const opened = {
  cells: [{ cell_type: 'code', source: '%load_ext jupyter_agent' }],
  metadata: { kernelspec: { name: 'python3' }, language_info: { name: 'python' } },
  nbformat: 4,
  nbformat_minor: 5
};

describe('userContent', () => {
  it('ignores what the kernel writes into the metadata when it starts', () => {
    const started = {
      ...opened,
      metadata: {
        kernelspec: { name: 'python3', display_name: 'Python 3 (ipykernel)' },
        language_info: { name: 'python', version: '3.12.1', mimetype: 'text/x-python' }
      }
    };
    expect(userContent(started)).toBe(userContent(opened));
  });

  it('sees every other change: cells, other metadata', () => {
    const edited = { ...opened, cells: [{ cell_type: 'code', source: 'x = 1' }] };
    const tagged = { ...opened, metadata: { ...opened.metadata, tags: ['a'] } };
    expect(userContent(edited)).not.toBe(userContent(opened));
    expect(userContent(tagged)).not.toBe(userContent(opened));
  });
});
