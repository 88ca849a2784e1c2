/**
 * A line diff of two cell sources, for the inline review of an edit (no DOM:
 * tested in node).
 */

export type DiffLine = { sign: ' ' | '+' | '-'; text: string };

/** A line diff of two sources (longest common subsequence; cells are small). */
export function lineDiff(before: string, after: string): DiffLine[] {
  const a = before.split('\n');
  const b = after.split('\n');
  const lengths = Array.from({ length: a.length + 1 }, () =>
    new Array<number>(b.length + 1).fill(0)
  );
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lengths[i][j] =
        a[i] === b[j]
          ? lengths[i + 1][j + 1] + 1
          : Math.max(lengths[i + 1][j], lengths[i][j + 1]);
    }
  }
  const lines: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      lines.push({ sign: ' ', text: a[i] });
      i++;
      j++;
    } else if (lengths[i + 1][j] >= lengths[i][j + 1]) {
      lines.push({ sign: '-', text: a[i++] });
    } else {
      lines.push({ sign: '+', text: b[j++] });
    }
  }
  while (i < a.length) {
    lines.push({ sign: '-', text: a[i++] });
  }
  while (j < b.length) {
    lines.push({ sign: '+', text: b[j++] });
  }
  return before === '' ? lines.filter(line => line.text !== '' || line.sign !== '-') : lines;
}
