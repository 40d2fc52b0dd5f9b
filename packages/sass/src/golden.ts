import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where ../shared/golden lies relative to the repository root (absent on a fresh clone elsewhere). */
export function findGoldenDir(from = dirname(fileURLToPath(import.meta.url))): string | undefined {
  let d = from;
  for (let i = 0; i < 8; i++) {
    const c = join(d, '..', 'shared', 'golden');
    if (existsSync(join(c, 'README.md'))) return resolve(c);
    const c2 = join(d, 'shared', 'golden');
    if (existsSync(join(c2, 'README.md'))) return resolve(c2);
    d = dirname(d);
  }
  return undefined;
}

export interface GoldenRow {
  /** Source file and 1-based line, for messages. */
  where: string;
  text: string;
  /** Hex of the 128-bit word (control included for full-word files; zeroed control for CuAssembler records). */
  code: string;
  /** Address of the instruction (needed for branch targets). */
  addr: number;
  /** Control string in CuAssembler notation when the file has one. */
  ctrl?: string;
  /** True when the word carries its control bits (105..121). */
  fullWord: boolean;
}

/** Reads one of the golden TSV formats (CuAssembler records, cudatest, sm90 pairs). */
export function readGoldenTsv(path: string): GoldenRow[] {
  const lines = readFileSync(path, 'utf8').split('\n');
  const head = lines[0]!.split('\t');
  const rows: GoldenRow[] = [];
  const name = path.split('/').pop()!;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line.trim()) continue;
    const f = line.split('\t');
    const get = (k: string): string => f[head.indexOf(k)]!;
    const where = `${name}:${i + 1}`;
    if (head.includes('code_no_ctrl')) {
      rows.push({ where, text: get('text'), code: get('code_no_ctrl'), addr: parseInt(get('addr'), 16), fullWord: false });
    } else {
      const lo = get('lo64').replace(/^0x/, '').padStart(16, '0');
      const hi = get('hi64').replace(/^0x/, '').padStart(16, '0');
      const row: GoldenRow = { where, text: get('text'), code: '0x' + hi + lo, addr: head.includes('addr') ? parseInt(get('addr'), 16) : 0, fullWord: true };
      if (head.includes('ctrl_cuasm')) row.ctrl = get('ctrl_cuasm');
      rows.push(row);
    }
  }
  return rows;
}
